import type { Db } from '../store/db.js';

/** PostgreSQL's deadlock and serialization failures: the transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

/** Whether an error is a deadlock or serialization conflict: the whole transaction may run again. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** Runs `fn` in a transaction, again when PostgreSQL aborted it for a deadlock or a serialization conflict. */
export async function transact<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return againOnConflict(() => db.transaction(fn));
}

/**
 * Runs `work` (a transaction, or one statement outside any) again when PostgreSQL aborted it for a deadlock or a
 * serialization conflict.
 */
export async function againOnConflict<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(error)) throw error;
    }
  }
}

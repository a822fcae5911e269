import type { Db } from '../store/db.js';

/** PostgreSQL's deadlock and serialization failures: the transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

/** Runs `fn` in a transaction, again when PostgreSQL aborted it for a deadlock or a serialization conflict. */
export async function transact<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(fn);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
    }
  }
}

import type { CheckType } from '../checks/index.js';
import { failedAttempt } from './failed-attempt.js';
import type { Executor } from './types.js';

/** An executor for a kind this build cannot run: every run fails with a message saying why. */
export function unsupported(kind: CheckType, reason: string): Executor {
  const message = `${kind} checks cannot run here: ${reason}`;
  return async () => failedAttempt(message);
}

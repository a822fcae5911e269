import { noAnswerWithin } from '../deadline.js';

/** Why a connection or exchange failed: a system error code and one line that names it. */
export interface Failure {
  code: string;
  message: string;
}

/** The failure of a run stopped from outside (cancelled, or at its kind's execution limit). */
export function aborted(reason: unknown): Failure {
  const why = reason instanceof Error ? reason.message : 'the run was cancelled';
  return { code: 'ABORT_ERR', message: `ABORT_ERR: ${why}` };
}

/** A failure from a socket or lookup error, with the code always in the message and the peer named. */
export function failureOf(error: unknown, peer: string): Failure {
  const err = error as NodeJS.ErrnoException | undefined;
  const code = typeof err?.code === 'string' ? err.code : 'EUNKNOWN';
  let message = err instanceof Error ? err.message : String(error);
  if (!message.includes(code)) message = `${code}: ${message}`;
  if (!message.includes(peer)) message = `${message} (${peer})`;
  return { code, message };
}

/** The failure of a step that did not finish within maxResponseTime. */
export function timedOut(step: string, peer: string, maxResponseTime: number): Failure {
  return {
    code: 'ETIMEDOUT',
    message: `${step} ETIMEDOUT ${peer}: ${noAnswerWithin(maxResponseTime)}`,
  };
}

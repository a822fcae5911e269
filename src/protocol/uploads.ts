import type { ResultUpload } from './messages.js';

// What the agent does with result uploads before any is checked against the schema of messages.ts (zod, loaded
// only when a result is read back or answered: docs/performance.md, "Agent start-up and memory").

/** The `Idempotency-Key` of a run's result upload. */
export function idempotencyKey(runId: string, attempt: number): string {
  return `${runId}:${attempt}`;
}

/** An upload as a control plane of `version` takes it: without the fields of later versions. */
export function uploadForVersion(upload: ResultUpload, version: number): ResultUpload {
  if (version >= 2) return upload;
  const { permanentError: _, ...v1 } = upload;
  return v1;
}

import type { ResultUpload } from '../../protocol/index.js';
import { conflict, type DomainError, notFound, validationError } from '../common/errors.js';
import type { RunRow } from '../queue/run.js';
import { implausibleTimes, type UploadedRecord } from './result-record.js';
import type { SessionRow } from './store.js';

/** An upload whose record is a result, at its place in its batch. */
export interface Candidate {
  index: number;
  upload: ResultUpload;
  record: UploadedRecord;
}

/**
 * Why the control plane does not record this upload: the run is unknown here (404), its times are impossible
 * (400), it is at another attempt or not this agent's (409); 'duplicate' when the run has its result already,
 * which is acknowledged; null for the first copy of a run's result. The caller holds the session's and the run's locks.
 */
export function refusalOf(
  { upload, record }: Candidate,
  location: string,
  run: RunRow | undefined,
  session: SessionRow | undefined,
): DomainError | 'duplicate' | null {
  if (!run || !session || run.location !== location) return notFound('Run', upload.runId);
  const impossible = implausibleTimes(record, run.check_type);
  if (impossible.length > 0) return validationError('body', impossible);
  if (upload.attempt !== run.attempt) {
    return conflict(`Run ${upload.runId} is attempt ${run.attempt}, not ${upload.attempt}`, {
      attempt: run.attempt,
    });
  }
  if (run.result_id !== null) return 'duplicate';
  const holder = leaseHolderProblem(run, upload.agentId);
  return holder ? conflict(holder, { runId: run.id }) : null;
}

/**
 * Why an agent may not report this run: it is leased to another agent, or was never handed to any. A run whose
 * lease ran out and that waits in the queue again still takes the result of the agent that ran it.
 */
function leaseHolderProblem(run: RunRow, agentId: string): string | null {
  if (run.status === 'leased' && run.agent_id !== agentId) return `Run ${run.id} is leased to another agent`;
  if (run.leases === 0) return `Run ${run.id} was never handed to an agent`;
  return null;
}

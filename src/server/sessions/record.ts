import { problemsOf } from '../../checks/index.js';
import type { ResultUpload } from '../../protocol/index.js';
import { DomainError, validationError } from '../common/errors.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import type { OnSessionsFinished } from './finish.js';
import { recordFirstCopies } from './first-copies.js';
import { parseUploadedRecord } from './result-record.js';
import { lockRunsCounted, lockSessionsOfRuns } from './store.js';
import { type Candidate, refusalOf } from './upload-refusal.js';

export interface ResultAck {
  recorded: boolean;
  duplicate: boolean;
}

/** The agent that sends a result: results are accepted only for runs of its account and location. */
export interface Uploader {
  accountId: string;
  location: string;
}

/**
 * What became of one upload of a batch: acknowledged (recorded, or a duplicate), refused (the domain's reason),
 * or failed (the store refused it: an error of ours, which the agent may try again).
 */
export type UploadOutcome = { ack: ResultAck } | { refused: DomainError } | { failed: unknown };

/**
 * Records the result an agent sent for a run, once: the first copy is stored (FINAL, or ATTEMPT followed by a
 * retry run when the retry strategy says so), every later copy is acknowledged as a duplicate. Throws the
 * refusal (a DomainError) of a result the control plane does not take.
 */
export async function recordUploadedResult(
  db: Db,
  uploader: Uploader,
  upload: ResultUpload,
  now: Date,
  onFinished: OnSessionsFinished,
): Promise<{ ack: ResultAck; effects: RunEffects }> {
  const { outcomes, effects } = await recordUploadedResults(db, uploader, [upload], now, onFinished, {
    alone: true,
  });
  const [outcome] = outcomes;
  if (outcome && 'ack' in outcome) return { ack: outcome.ack, effects };
  if (outcome && 'refused' in outcome) throw outcome.refused;
  throw outcome?.failed;
}

/**
 * `recordUploadedResult` for a batch, with one outcome per upload in their order: the batch is recorded in one
 * transaction of a few statements whatever its size. Should the store refuse that transaction, each upload is
 * recorded in a transaction of its own, so one upload the store cannot take costs no other its place. A run
 * named twice is recorded as if its copies had come one after another.
 */
export async function recordUploadedResults(
  db: Db,
  uploader: Uploader,
  uploads: readonly ResultUpload[],
  now: Date,
  onFinished: OnSessionsFinished,
  options: { alone?: boolean } = {},
): Promise<{ outcomes: UploadOutcome[]; effects: RunEffects }> {
  const answers: Answers = { outcomes: [], effects: new RunEffects() };
  let pending: Candidate[] = [];
  uploads.forEach((upload, index) => {
    const parsed = parseUploadedRecord(upload.result);
    if (parsed.success) pending.push({ index, upload, record: parsed.data });
    else {
      const problems = problemsOf(parsed.error).map((p) => ({
        path: `result.${p.path}`,
        message: p.message,
      }));
      answers.outcomes[index] = { refused: validationError('body', problems) };
    }
  });
  while (pending.length > 0) {
    const seen = new Set<string>();
    const distinct = pending.filter((c) => !seen.has(c.upload.runId) && seen.add(c.upload.runId));
    pending = pending.filter((c) => !distinct.includes(c));
    await recordTogether(db, uploader, distinct, now, onFinished, options.alone === true, answers);
  }
  return answers;
}

/** What the uploads of a batch came to, filled in as they are recorded. */
interface Answers {
  outcomes: UploadOutcome[];
  effects: RunEffects;
}

async function recordTogether(
  db: Db,
  uploader: Uploader,
  candidates: readonly Candidate[],
  now: Date,
  onFinished: OnSessionsFinished,
  alone: boolean,
  answers: Answers,
): Promise<void> {
  let recorded: Awaited<ReturnType<typeof recordInTransaction>>;
  try {
    recorded = await transact(db, (tx) => recordInTransaction(tx, uploader, candidates, now, onFinished));
  } catch (error) {
    if (alone) throw error;
    const [only] = candidates as [Candidate];
    if (candidates.length === 1) {
      answers.outcomes[only.index] = { failed: error };
      return;
    }
    // One upload the store refuses must not cost the others theirs: each is tried in a transaction of its own.
    for (const candidate of candidates) {
      await recordTogether(db, uploader, [candidate], now, onFinished, false, answers);
    }
    return;
  }
  for (const [index, outcome] of recorded.outcomes) answers.outcomes[index] = outcome;
  answers.effects.absorb(recorded.effects);
}

/** Uploads of distinct runs, under their sessions' and runs' locks. */
async function recordInTransaction(
  tx: Db,
  uploader: Uploader,
  candidates: readonly Candidate[],
  now: Date,
  onFinished: OnSessionsFinished,
): Promise<{ outcomes: Map<number, UploadOutcome>; effects: RunEffects }> {
  const runIds = candidates.map((c) => c.upload.runId);
  const sessions = new Map((await lockSessionsOfRuns(tx, uploader.accountId, runIds)).map((s) => [s.id, s]));
  const runs = new Map((await lockRunsCounted(tx, uploader.accountId, runIds)).map((r) => [r.id, r]));
  const outcomes = new Map<number, UploadOutcome>();
  const firsts = [];
  for (const candidate of candidates) {
    const run = runs.get(candidate.upload.runId);
    const session = run && sessions.get(run.session_id);
    const refusal = refusalOf(candidate, uploader.location, run, session);
    if (refusal === 'duplicate') outcomes.set(candidate.index, { ack: { recorded: false, duplicate: true } });
    else if (refusal instanceof DomainError) outcomes.set(candidate.index, { refused: refusal });
    else if (run && session) {
      firsts.push({ session, run, candidate });
      outcomes.set(candidate.index, { ack: { recorded: true, duplicate: false } });
    }
  }
  const effects = new RunEffects();
  await recordFirstCopies(tx, firsts, now, effects, onFinished);
  return { outcomes, effects };
}

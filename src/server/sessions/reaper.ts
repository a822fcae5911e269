import { RunEffects } from '../queue/events.js';
import { expiryReason, leaseLossReason, MAX_LEASE_LOSSES } from '../queue/rules.js';
import type { RunRow } from '../queue/run.js';
import {
  lockRun,
  type RunRef,
  requeueLostRun,
  runsNobodyTook,
  runsWithExpiredLeases,
} from '../queue/sweep.js';
import { transact } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import type { OnSessionsFinished } from './finish.js';
import { closeUnranRun } from './save-result.js';
import { lockSession, type SessionRow } from './store.js';

/** What the agents' silence means for a run whose lease ran out. */
export const LOST_WHILE_CANCELLING = 'the run was cancelled and its agent stopped answering';

/**
 * Runs whose lease ran out go back to the queue; the third loss ends the run TIMED_OUT, and a run whose cancel was
 * asked for ends CANCELLED. Each run is handled in its own transaction under its session's lock, so several
 * replicas can reap at once and each run is handled once.
 */
export async function reapLostLeases(db: Db, now: Date, onFinished: OnSessionsFinished): Promise<RunEffects> {
  const effects = new RunEffects();
  for (const ref of await runsWithExpiredLeases(db, now)) {
    await underLocks(db, ref, async (tx, session, run) => {
      if (run.status !== 'leased' || !run.lease_expires_at || run.lease_expires_at > now) return;
      if (run.cancel_requested_at) {
        await closeUnranRun(
          tx,
          session,
          run,
          { run: 'cancelled', status: 'CANCELLED', reason: LOST_WHILE_CANCELLING },
          now,
          effects,
          onFinished,
        );
      } else if (run.lease_losses + 1 >= MAX_LEASE_LOSSES) {
        const reason = leaseLossReason(MAX_LEASE_LOSSES);
        await closeUnranRun(
          tx,
          session,
          run,
          { run: 'timed_out', status: 'TIMED_OUT', reason },
          now,
          effects,
          onFinished,
        );
      } else {
        await requeueLostRun(tx, run.id, now);
        effects.queued(run.account_id, run.location);
      }
    });
  }
  return effects;
}

/** Queued runs no agent took within 6 minutes expire, with a FINAL result that names the location. */
export async function expireUntakenRuns(
  db: Db,
  now: Date,
  onFinished: OnSessionsFinished,
): Promise<RunEffects> {
  const effects = new RunEffects();
  for (const ref of await runsNobodyTook(db, now)) {
    await underLocks(db, ref, async (tx, session, run) => {
      if (run.status !== 'queued' || run.expires_at > now) return;
      const reason = expiryReason(run.location);
      await closeUnranRun(
        tx,
        session,
        run,
        { run: 'expired', status: 'TIMED_OUT', reason },
        now,
        effects,
        onFinished,
      );
    });
  }
  return effects;
}

async function underLocks(
  db: Db,
  ref: RunRef,
  fn: (tx: Db, session: SessionRow, run: RunRow) => Promise<void>,
): Promise<void> {
  await transact(db, async (tx) => {
    const session = await lockSession(tx, ref.session_id);
    const run = session ? await lockRun(tx, ref.id) : null;
    if (session && run) await fn(tx, session, run);
  });
}

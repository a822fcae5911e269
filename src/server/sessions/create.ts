import { randomUUID } from 'node:crypto';
import type { RunSource } from '../../checks/index.js';
import { enqueueRuns } from '../queue/enqueue.js';
import type { RunEffects } from '../queue/events.js';
import type { RunPayload } from '../queue/run.js';
import type { Db } from '../store/db.js';
import type { EffectiveCheck } from './effective.js';
import type { AccountRunContext } from './run-context.js';
import { insertSessions } from './store.js';

export interface SessionPlan {
  check: EffectiveCheck;
  runSource: RunSource;
  /** The locations of this session: one run each. */
  locations: string[];
  /** Where retries may go when the strategy allows another location. */
  retryLocations: string[];
  testSessionId?: string | null;
  sessionId?: string;
  /** When the session starts and its runs may be handed out: now, or the start of an interval claimed early. */
  now: Date;
}

/** The payload every run of a check carries: the merged check, inherited variables, client certificates. */
function runPayloadOf(plan: SessionPlan, context: AccountRunContext): RunPayload {
  return {
    runSource: plan.runSource,
    check: plan.check.definition,
    inheritedVariables: [plan.check.groupVariables, context.accountVariables],
    clientCertificates: context.clientCertificates,
    retryLocations: plan.retryLocations,
  };
}

/** A session to make, with what its runs inherit from its account. */
export interface PlannedSession {
  plan: SessionPlan;
  context: AccountRunContext;
}

/**
 * Makes RUNNING check sessions and queues one run per location of each, with one statement for the sessions and
 * one for the runs; returns the session ids, in order.
 */
export async function createCheckSessions(
  tx: Db,
  sessions: readonly PlannedSession[],
  effects: RunEffects,
): Promise<string[]> {
  const ids = sessions.map(({ plan }) => plan.sessionId ?? randomUUID());
  await insertSessions(
    tx,
    sessions.map(({ plan }, i) => ({
      id: ids[i] as string,
      account_id: plan.check.accountId,
      check_id: plan.check.id,
      check_type: plan.check.checkType,
      name: plan.check.name,
      run_source: plan.runSource,
      run_locations: plan.locations,
      test_session_id: plan.testSessionId ?? null,
      started_at: plan.now,
    })),
  );
  await enqueueRuns(
    tx,
    sessions.flatMap(({ plan, context }, i) => {
      const { check } = plan;
      const payload = runPayloadOf(plan, context);
      return plan.locations.map((location) => ({
        accountId: check.accountId,
        sessionId: ids[i] as string,
        checkId: check.id,
        checkType: check.checkType,
        location,
        attempt: 1,
        payload,
        dueAt: plan.now,
      }));
    }),
  );
  for (const { plan } of sessions) {
    for (const location of plan.locations) {
      effects.queued(plan.check.accountId, location, {
        notBefore: plan.now,
        checkType: plan.check.checkType,
      });
    }
  }
  return ids;
}

import { randomUUID } from 'node:crypto';
import type { RunSource } from '../../checks/index.js';
import { enqueueRuns } from '../queue/enqueue.js';
import type { RunEffects } from '../queue/events.js';
import type { RunPayload } from '../queue/run.js';
import type { Db } from '../store/db.js';
import type { EffectiveCheck } from './effective.js';
import type { AccountRunContext } from './run-context.js';
import { insertSession } from './store.js';

export interface SessionPlan {
  check: EffectiveCheck;
  runSource: RunSource;
  /** The locations of this session: one run each. */
  locations: string[];
  /** Where retries may go when the strategy allows another location. */
  retryLocations: string[];
  testSessionId?: string | null;
  sessionId?: string;
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

/** Makes a RUNNING check session and queues one run per location; returns the session id. */
export async function createCheckSession(
  tx: Db,
  plan: SessionPlan,
  context: AccountRunContext,
  effects: RunEffects,
): Promise<string> {
  const id = plan.sessionId ?? randomUUID();
  const { check } = plan;
  await insertSession(tx, {
    id,
    account_id: check.accountId,
    check_id: check.id,
    check_type: check.checkType,
    name: check.name,
    run_source: plan.runSource,
    run_locations: plan.locations,
    test_session_id: plan.testSessionId ?? null,
    started_at: plan.now,
  });
  const payload = runPayloadOf(plan, context);
  await enqueueRuns(
    tx,
    plan.locations.map((location) => ({
      accountId: check.accountId,
      sessionId: id,
      checkId: check.id,
      checkType: check.checkType,
      location,
      attempt: 1,
      payload,
      dueAt: plan.now,
    })),
  );
  for (const location of plan.locations) effects.queued(check.accountId, location);
  return id;
}

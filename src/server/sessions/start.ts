import type { RunSource } from '../../checks/index.js';
import { PerAccount } from '../common/per-account.js';
import type { RunEffects } from '../queue/events.js';
import type { Db } from '../store/db.js';
import { createCheckSessions, type PlannedSession } from './create.js';
import type { EffectiveCheck } from './effective.js';
import { locationsOrFallback, preferredLocation } from './locations.js';
import { accountRunContext } from './run-context.js';

export interface StartOptions {
  runSource: RunSource;
  now: Date;
  testSessionId?: string | null;
  /** Runs every check at this one location (a test session's location). */
  location?: string | null;
  /** How recently an agent must have been seen to count as connected. */
  agentFreshMs: number;
}

/**
 * Starts one session per check now (trigger, test session): a parallel check runs at all its locations, another
 * at one of them, preferring a location with a connected agent. Returns the session ids, in the checks' order.
 */
export async function startSessions(
  tx: Db,
  checks: readonly EffectiveCheck[],
  options: StartOptions,
  effects: RunEffects,
): Promise<string[]> {
  const contexts = new PerAccount(accountRunContext);
  const sessions: PlannedSession[] = [];
  for (const check of checks) {
    const all = options.location
      ? [options.location]
      : await locationsOrFallback(tx, check.accountId, check.locations);
    const locations =
      check.runParallel || all.length === 1
        ? all
        : [await preferredLocation(tx, check.accountId, all, options.now, options.agentFreshMs)];
    sessions.push({
      plan: {
        check,
        runSource: options.runSource,
        locations,
        retryLocations: all,
        testSessionId: options.testSessionId ?? null,
        now: options.now,
      },
      context: await contexts.get(tx, check.accountId),
    });
  }
  return createCheckSessions(tx, sessions, effects);
}

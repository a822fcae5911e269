import { PerAccount } from '../common/per-account.js';
import {
  type ActiveMaintenance,
  activeAt,
  maintenanceTagsOf,
  maintenanceWindows,
  matchesAny,
} from '../maintenance/active.js';
import { addMs } from '../queue/clock.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import { loadChecks } from '../sessions/checks.js';
import { createCheckSessions, type PlannedSession } from '../sessions/create.js';
import { effectiveCheck } from '../sessions/effective.js';
import { fallbackLocations, locationsOrFallback, sessionLocations } from '../sessions/locations.js';
import { accountRunContext } from '../sessions/run-context.js';
import type { Db } from '../store/db.js';
import { toNumber } from '../store/rows.js';

/** How many due checks one transaction claims and schedules. */
export const CLAIM_BATCH = 500;

/** How many claim transactions of one tick run at once on PostgreSQL. */
const PARALLEL_BATCHES = 3;

/**
 * How long before its interval starts a check is claimed: its session and runs are then in the queue when the
 * interval starts, and agents are handed its runs at the start (not_before), not a tick and a transaction later.
 * A claim starts once a check is due within CLAIM_SOON_MS and takes every check due within CLAIM_LEAD_MS: each
 * interval is claimed 1–3 s before it starts, and the claims of about two seconds of checks share one transaction
 * (a claim costs a handful of statements whatever the number of checks it takes: issue 14, docs/control-plane.md).
 */
export const CLAIM_LEAD_MS = 3_000;
export const CLAIM_SOON_MS = 1_000;

/**
 * A probe that finds a check due within CLAIM_SOON_MS and this much more claims at once. After a claim the next
 * check is due just over CLAIM_LEAD_MS later, and the probes a second apart that see other replicas' changes
 * (quiet.ts) land just before it is due within CLAIM_SOON_MS: with this slack that probe claims, instead of being
 * followed by another a tick later (three probes per claim instead of two).
 */
const CLAIM_SLACK_MS = 250;

/** Whether a check next due at `dueMs` is claimed at `nowMs` (a probe that reads it, or a tick that knows it). */
export function withinClaimReach(dueMs: number, nowMs: number): boolean {
  return dueMs <= nowMs + CLAIM_SOON_MS + CLAIM_SLACK_MS;
}

/** When the next active check comes due: the one index probe of a tick that claims nothing. */
export const NEXT_DUE = 'SELECT next_due_at FROM check_schedules WHERE active ORDER BY next_due_at LIMIT 1';

/**
 * Claims checks due within the lead ($1 = now + lead). The claimed interval is the one that contains the later of
 * now ($2) and the row's next-due time: the current one for a row overdue, the coming one for a row due within the
 * lead. Its number and start come back, and the row moves to the start of the interval after it (`intervalAt` of
 * src/checks/schedule.ts, in SQL), which comes back too. Rows another transaction holds are skipped, so two
 * replicas never claim one interval. Each row also brings when the first active check this claim left comes due
 * (`next_unclaimed`, read once for the statement), so the tick after a claim need not ask the store again.
 */
const CLAIM_DUE = `
WITH due AS MATERIALIZED (
  SELECT check_id, GREATEST($2::bigint, (extract(epoch FROM next_due_at) * 1000)::bigint) AS at_ms
    FROM check_schedules
   WHERE active AND next_due_at <= $1
   ORDER BY next_due_at LIMIT $3
   FOR UPDATE SKIP LOCKED
),
claim AS (
  SELECT s.check_id, (due.at_ms - s.shift_ms) / s.period_ms AS interval_index, s.period_ms, s.shift_ms
    FROM check_schedules s JOIN due ON s.check_id = due.check_id
)
UPDATE check_schedules s
   SET next_due_at = timestamptz 'epoch'
       + interval '1 millisecond' * ((claim.interval_index + 1) * claim.period_ms + claim.shift_ms)
  FROM claim WHERE s.check_id = claim.check_id
RETURNING s.check_id, claim.interval_index, claim.interval_index * claim.period_ms + claim.shift_ms AS start_ms,
          s.next_due_at,
          (SELECT o.next_due_at FROM check_schedules o
            WHERE o.active AND NOT EXISTS (SELECT 1 FROM due WHERE due.check_id = o.check_id)
            ORDER BY o.next_due_at LIMIT 1) AS next_unclaimed`;

/** What a tick reads once per account, whatever the number of its due checks and of the moments they start at. */
class TickMemory {
  readonly contexts = new PerAccount(accountRunContext);
  readonly fallbacks = new PerAccount(fallbackLocations);
  private readonly windows = new PerAccount(maintenanceWindows);

  /** The windows in progress when an interval starts (a claim takes about a second of starts, 10 phase steps). */
  async maintenance(db: Db, accountId: string, at: Date): Promise<ActiveMaintenance> {
    return activeAt(await this.windows.get(db, accountId), at);
  }
}

/**
 * Schedules the current interval of every due check, once (docs/control-plane.md, Scheduling): due rows of
 * `check_schedules` are claimed a batch at a time, each batch in one transaction with the sessions and runs it
 * makes, so a crash never leaves a claimed interval without its session. A claimed interval of a check that a
 * maintenance window pauses (or whose group was deactivated) is skipped: claimed, no session. What each batch
 * queued is published as soon as it commits, so agents get the first runs while later batches are still made.
 * Resolves to when the next active check comes due (null: none is active), known from the probe when nothing was
 * due soon and from the claim when one transaction took every check due; undefined after claims of several
 * batches, or a claim that found nothing. With `dueSoon` (the caller read when the next check comes due, and it is
 * within the claim's reach: quiet.ts) the claim is made without the probe.
 */
export async function scheduleDueChecks(
  db: Db,
  now: Date,
  publish: (effects: RunEffects) => void,
  dueSoon = false,
): Promise<Date | null | undefined> {
  if (!dueSoon) {
    const [next] = await db.query<{ next_due_at: Date | string }>(NEXT_DUE);
    const nextDueAt = next ? new Date(next.next_due_at) : null;
    if (nextDueAt === null || !withinClaimReach(nextDueAt.getTime(), now.getTime())) return nextDueAt;
  }
  const memory = new TickMemory();
  const batch = async () => {
    const effects = new RunEffects();
    const claimed = await transact(db, (tx) => scheduleBatch(tx, now, memory, effects));
    publish(effects);
    return claimed;
  };
  const first = await batch();
  if (first.claimed < CLAIM_BATCH) return first.nextDueAt;
  // More than a batch is due: on PostgreSQL several transactions claim at once (SKIP LOCKED keeps their claims
  // apart), so the store's work on one overlaps the server's on the next; PGlite has one connection.
  const batches = async () => {
    while ((await batch()).claimed === CLAIM_BATCH) {}
  };
  await Promise.all(Array.from({ length: db.kind === 'postgres' ? PARALLEL_BATCHES : 1 }, batches));
}

/** What one claim transaction did: how many checks it claimed, and when the first active check comes due after it. */
interface BatchClaimed {
  claimed: number;
  /** Null when no check is active; undefined when nothing was claimed (the claim then read no time). */
  nextDueAt: Date | null | undefined;
}

/** Claims up to CLAIM_BATCH due checks and makes their sessions. */
async function scheduleBatch(
  tx: Db,
  now: Date,
  memory: TickMemory,
  effects: RunEffects,
): Promise<BatchClaimed> {
  const claims = await tx.query<{
    check_id: string;
    interval_index: number | string;
    start_ms: number | string;
    next_due_at: Date | string;
    next_unclaimed: Date | string | null;
  }>(CLAIM_DUE, [addMs(now, CLAIM_LEAD_MS), now.getTime(), CLAIM_BATCH]);
  if (claims.length === 0) return { claimed: 0, nextDueAt: undefined };
  const intervals = new Map(
    claims.map((c) => [c.check_id, { index: toNumber(c.interval_index), start: toNumber(c.start_ms) }]),
  );
  const sessions: PlannedSession[] = [];
  for (const stored of await loadChecks(tx, { ids: [...intervals.keys()] })) {
    const interval = intervals.get(stored.id) as { index: number; start: number };
    // A claimed interval that has not started yet starts its session and runs at its start.
    const startsAt = interval.start > now.getTime() ? new Date(interval.start) : now;
    const maintenance = await memory.maintenance(tx, stored.accountId, startsAt);
    if (matchesAny(maintenanceTagsOf(stored), maintenance.pausedTags)) continue;
    const check = effectiveCheck(stored);
    if (!check.scheduled || check.checkType === 'HEARTBEAT') continue;
    const all = await locationsOrFallback(tx, check.accountId, check.locations, (db, accountId) =>
      memory.fallbacks.get(db, accountId),
    );
    sessions.push({
      plan: {
        check,
        runSource: 'SCHEDULER',
        locations: sessionLocations(all, check.runParallel, interval.index),
        retryLocations: all,
        now: startsAt,
      },
      context: await memory.contexts.get(tx, check.accountId),
    });
  }
  await createCheckSessions(tx, sessions, effects);
  return { claimed: claims.length, nextDueAt: nextDueAfter(claims) };
}

/** The earliest of the claimed rows' new next-due times and of the first one the claim left. */
function nextDueAfter(
  claims: readonly { next_due_at: Date | string; next_unclaimed: Date | string | null }[],
): Date {
  const times = claims.map((c) => new Date(c.next_due_at).getTime());
  const left = claims[0]?.next_unclaimed;
  if (left != null) times.push(new Date(left).getTime());
  return new Date(Math.min(...times));
}

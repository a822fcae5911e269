import { PerAccount } from '../common/per-account.js';
import { activeMaintenance, maintenanceTagsOf, matchesAny } from '../maintenance/active.js';
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

/** Whether any check is due: the one index probe of an idle tick. */
const ANY_DUE =
  'SELECT next_due_at FROM check_schedules WHERE active AND next_due_at <= $1 ORDER BY next_due_at LIMIT 1';

/**
 * Claims due checks: each row's next-due time moves to the start of the interval after the one that contains now
 * (`intervalAt` of src/checks/schedule.ts, in SQL), and the number of the claimed interval comes back. Rows another
 * transaction holds are skipped, so two replicas never claim one interval.
 */
const CLAIM_DUE = `
WITH due AS MATERIALIZED (
  SELECT check_id FROM check_schedules
   WHERE active AND next_due_at <= $1
   ORDER BY next_due_at LIMIT $3
   FOR UPDATE SKIP LOCKED
)
UPDATE check_schedules s
   SET next_due_at = timestamptz 'epoch'
       + interval '1 millisecond' * ((($2::bigint - s.shift_ms) / s.period_ms + 1) * s.period_ms + s.shift_ms)
  FROM due WHERE s.check_id = due.check_id
RETURNING s.check_id, ($2::bigint - s.shift_ms) / s.period_ms AS interval_index`;

/** What a tick reads once per account, whatever the number of its due checks. */
class TickMemory {
  readonly contexts = new PerAccount(accountRunContext);
  readonly fallbacks = new PerAccount(fallbackLocations);
  readonly maintenance: PerAccount<Awaited<ReturnType<typeof activeMaintenance>>>;
  constructor(now: Date) {
    this.maintenance = new PerAccount((db, accountId) => activeMaintenance(db, accountId, now));
  }
}

/**
 * Schedules the current interval of every due check, once (docs/control-plane.md, Scheduling): due rows of
 * `check_schedules` are claimed a batch at a time, each batch in one transaction with the sessions and runs it
 * makes, so a crash never leaves a claimed interval without its session. A claimed interval of a check that a
 * maintenance window pauses (or whose group was deactivated) is skipped: claimed, no session. What each batch
 * queued is published as soon as it commits, so agents get the first runs while later batches are still made.
 */
export async function scheduleDueChecks(
  db: Db,
  now: Date,
  publish: (effects: RunEffects) => void,
): Promise<void> {
  if ((await db.query(ANY_DUE, [now])).length === 0) return;
  const memory = new TickMemory(now);
  const batch = async () => {
    const effects = new RunEffects();
    const claimed = await transact(db, (tx) => scheduleBatch(tx, now, memory, effects));
    publish(effects);
    return claimed;
  };
  if ((await batch()) < CLAIM_BATCH) return;
  // More than a batch is due: on PostgreSQL several transactions claim at once (SKIP LOCKED keeps their claims
  // apart), so the store's work on one overlaps the server's on the next; PGlite has one connection.
  const batches = async () => {
    while ((await batch()) === CLAIM_BATCH) {}
  };
  await Promise.all(Array.from({ length: db.kind === 'postgres' ? PARALLEL_BATCHES : 1 }, batches));
}

/** Claims up to CLAIM_BATCH due checks and makes their sessions; returns how many it claimed. */
async function scheduleBatch(tx: Db, now: Date, memory: TickMemory, effects: RunEffects): Promise<number> {
  const claims = await tx.query<{ check_id: string; interval_index: number | string }>(CLAIM_DUE, [
    now,
    now.getTime(),
    CLAIM_BATCH,
  ]);
  if (claims.length === 0) return 0;
  const intervals = new Map(claims.map((c) => [c.check_id, toNumber(c.interval_index)]));
  const sessions: PlannedSession[] = [];
  for (const stored of await loadChecks(tx, { ids: [...intervals.keys()] })) {
    const maintenance = await memory.maintenance.get(tx, stored.accountId);
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
        locations: sessionLocations(all, check.runParallel, intervals.get(check.id) as number),
        retryLocations: all,
        now,
      },
      context: await memory.contexts.get(tx, check.accountId),
    });
  }
  await createCheckSessions(tx, sessions, effects);
  return claims.length;
}

/**
 * Every claim rewrites its row, and PGlite has no autovacuum: without this the table and its index would grow by
 * every claim ever made (and the idle probe slow down with them). Once a minute keeps them at a few claims per
 * row. PostgreSQL's autovacuum does the same on its own.
 */
export async function vacuumScheduleRows(db: Db): Promise<void> {
  if (db.kind === 'pglite') await db.exec('VACUUM check_schedules');
}

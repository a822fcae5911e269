import { randomUUID } from 'node:crypto';
import { pausedCheckIds } from '../maintenance/active.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import { loadChecks } from '../sessions/checks.js';
import { createCheckSession } from '../sessions/create.js';
import { type EffectiveCheck, effectiveCheck } from '../sessions/effective.js';
import { locationsOrFallback, sessionLocations } from '../sessions/locations.js';
import { type AccountRunContext, accountRunContext } from '../sessions/run-context.js';
import type { Db } from '../store/db.js';
import { type Interval, intervalAt, scheduleOf } from './intervals.js';

/** The intervals this server already claimed or saw claimed, by check: spares the store a claim per tick. */
export type ClaimMemory = Map<string, number>;

/**
 * Schedules the current interval of every activated check, once: the interval is claimed in `schedule_slots`
 * (INSERT … ON CONFLICT DO NOTHING) in the same transaction that makes its session and runs, so a restart or a
 * second replica never schedules it again. Intervals that ended while no server ran are not made up for, nor are
 * those a maintenance window paused.
 */
export async function scheduleDueChecks(db: Db, now: Date, memory: ClaimMemory): Promise<RunEffects> {
  const effects = new RunEffects();
  const stored = (await loadChecks(db, { activatedOnly: true })).filter((c) => c.checkType !== 'HEARTBEAT');
  const paused = await pausedCheckIds(db, stored, now);
  const checks = stored
    .filter((c) => !paused.has(c.id))
    .map(effectiveCheck)
    .filter((c) => c.scheduled);
  const contexts = new Map<string, AccountRunContext>();
  const seen = new Set<string>();
  for (const check of checks) {
    seen.add(check.id);
    const interval = intervalAt(scheduleOf(check.frequency, check.frequencyOffset), now);
    if (memory.get(check.id) === interval.start.getTime()) continue;
    let context = contexts.get(check.accountId);
    if (!context) {
      context = await accountRunContext(db, check.accountId);
      contexts.set(check.accountId, context);
    }
    await claimInterval(db, check, interval, context, now, effects);
    memory.set(check.id, interval.start.getTime());
  }
  for (const id of memory.keys()) if (!seen.has(id)) memory.delete(id);
  return effects;
}

async function claimInterval(
  db: Db,
  check: EffectiveCheck,
  interval: Interval,
  context: AccountRunContext,
  now: Date,
  effects: RunEffects,
): Promise<void> {
  const all = await locationsOrFallback(db, check.accountId, check.locations);
  const sessionId = randomUUID();
  await transact(db, async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO schedule_slots (check_id, slot_start, session_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING session_id`,
      [check.id, interval.start, sessionId],
    );
    if (claimed.length === 0) return;
    await createCheckSession(
      tx,
      {
        check,
        runSource: 'SCHEDULER',
        locations: sessionLocations(all, check.runParallel, interval.index),
        retryLocations: all,
        sessionId,
        now,
      },
      context,
      effects,
    );
  });
}

/** Claims older than any period (a day) can never be claimed again; dropping them keeps the table small. */
export async function pruneScheduleSlots(db: Db, now: Date): Promise<void> {
  await db.query('DELETE FROM schedule_slots WHERE slot_start < $1', [
    new Date(now.getTime() - 2 * 86_400_000),
  ]);
}

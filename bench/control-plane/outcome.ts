/**
 * From what the store holds and what arrived, the figures of a window: which (check, slot) pairs were due, which
 * were done, and how late. A session's slot is the interval that held its start (docs/control-plane.md,
 * Scheduling: the scheduler schedules the interval that contains now, or the coming one within the claim lead):
 * for frequency 0 and offset 10, a 10-s interval at the check's own phase.
 */
import { intervalAt, scheduleOf } from '../../src/checks/schedule.js';
import type { Db } from '../../src/server/store/db.js';
import { SLOT_MS } from './options.js';

/** A scheduled check session and its FINAL result. */
export interface SessionRow {
  id: string;
  checkId: string;
  slot: number;
  /** How often its run was handed to an agent (more than once after a lost lease); only such a run can arrive. */
  leases: number;
  /** When the control plane stored its result. */
  storedAt: number | null;
}

export async function readSessions(db: Db): Promise<SessionRow[]> {
  const rows = await db.query<{
    id: string;
    check_id: string;
    started_at: Date;
    leases: number;
    stored_at: Date | null;
  }>(
    `SELECT s.id, s.check_id, s.started_at, r.created_at AS stored_at,
            (SELECT COALESCE(max(u.leases), 0) FROM runs u WHERE u.session_id = s.id) AS leases
       FROM check_sessions s LEFT JOIN check_results r ON r.session_id = s.id AND r.result_type = 'FINAL'
      WHERE s.run_source = 'SCHEDULER'`,
  );
  return rows.map((r) => ({
    id: r.id,
    checkId: r.check_id,
    slot: intervalAt(scheduleOf(0, SLOT_MS / 1000, r.check_id), new Date(r.started_at)).start.getTime(),
    leases: Number(r.leases),
    storedAt: r.stored_at === null ? null : new Date(r.stored_at).getTime(),
  }));
}

/**
 * Pairs each check's arrivals at the target with its sessions, in order. Agents lease a location's runs oldest
 * first (a run left in the queue too long is skipped: it expires) and start each as it comes, so the leased runs
 * of one check reach the target in the order of their slots, and any not started by the end are the newest: the
 * n-th arrival of a check is its n-th leased session. (No retries: the target answers 200.) Answers when each
 * session's request arrived, and how many arrivals were left over (none unless that order was broken). A run
 * handed out twice, after its lease ran out on an overloaded control plane, may arrive twice and shift the later
 * pairs of its check; the bench notes how many were.
 */
export function pairArrivals(
  sessions: readonly SessionRow[],
  arrivals: ReadonlyMap<string, readonly number[]>,
): { arrivedAt: Map<string, number>; unmatched: number } {
  const byCheck = new Map<string, SessionRow[]>();
  for (const s of sessions) {
    if (s.leases === 0) continue;
    const list = byCheck.get(s.checkId);
    if (list) list.push(s);
    else byCheck.set(s.checkId, [s]);
  }
  const arrivedAt = new Map<string, number>();
  let unmatched = 0;
  for (const [checkId, times] of arrivals) {
    const ordered = (byCheck.get(checkId) ?? []).sort((a, b) => a.slot - b.slot);
    const sorted = [...times].sort((a, b) => a - b);
    for (const [i, session] of ordered.entries()) {
      const arrival = sorted[i];
      if (arrival !== undefined) arrivedAt.set(session.id, arrival);
    }
    unmatched += Math.max(0, sorted.length - ordered.length);
  }
  return { arrivedAt, unmatched };
}

export interface WindowFigures {
  /** (check, slot) pairs due in the window: every check, every slot. */
  due: number;
  /** Of those, the pairs whose run arrived by the deadline. */
  done: number;
  /** Arrival minus slot start of each done pair, in ms. */
  lagsMs: number[];
  /** Results the control plane stored within the window (of any slot). */
  stored: number;
}

export function windowFigures(
  sessions: readonly SessionRow[],
  arrivedAt: ReadonlyMap<string, number>,
  checks: number,
  window: { startMs: number; endMs: number; deadlineMs: number },
): WindowFigures {
  const lagsMs: number[] = [];
  let stored = 0;
  for (const s of sessions) {
    if (s.storedAt !== null && s.storedAt >= window.startMs && s.storedAt < window.endMs) stored += 1;
    if (s.slot < window.startMs || s.slot >= window.endMs) continue;
    const at = arrivedAt.get(s.id);
    if (at !== undefined && at <= window.deadlineMs) lagsMs.push(at - s.slot);
  }
  const due = (checks * (window.endMs - window.startMs)) / SLOT_MS;
  return { due, done: lagsMs.length, lagsMs, stored };
}

/**
 * From what the store holds and what arrived, the figures of a window: which (check, slot) pairs were due, which
 * were done, and how late. A session's slot is the interval that held its start (docs/control-plane.md,
 * Scheduling: the scheduler schedules the interval that contains now): for frequency 0 and offset 10, the epoch
 * multiple of 10 s at or before it.
 */
import type { Db } from '../../src/server/store/db.js';
import { SLOT_MS } from './options.js';

/** A scheduled check session and its FINAL result. */
export interface SessionRow {
  id: string;
  checkId: string;
  slot: number;
  /** When the agent started the run (its result's startedAt); null unless its result says the target answered. */
  ranAt: number | null;
  /** When the control plane stored the result. */
  storedAt: number | null;
}

export async function readSessions(db: Db): Promise<SessionRow[]> {
  const rows = await db.query<{
    id: string;
    check_id: string;
    started_at: Date;
    ran_at: string | null;
    stored_at: Date | null;
  }>(
    `SELECT s.id, s.check_id, s.started_at, r.created_at AS stored_at,
            CASE WHEN r.status IN ('PASSED', 'DEGRADED') THEN r.record->>'startedAt' END AS ran_at
       FROM check_sessions s LEFT JOIN check_results r ON r.session_id = s.id AND r.result_type = 'FINAL'
      WHERE s.run_source = 'SCHEDULER'`,
  );
  return rows.map((r) => ({
    id: r.id,
    checkId: r.check_id,
    slot: Math.floor(new Date(r.started_at).getTime() / SLOT_MS) * SLOT_MS,
    ranAt: r.ran_at === null ? null : Date.parse(r.ran_at),
    storedAt: r.stored_at === null ? null : new Date(r.stored_at).getTime(),
  }));
}

/**
 * Pairs each check's arrivals at the target with its sessions, in order: a run whose result says the target
 * answered (PASSED) is the next arrival of its check. Runs of a check start one after another and, even when two
 * start together, their requests arrive within milliseconds, so the order holds. Answers when each session's
 * request arrived, and how many arrivals matched no stored result (a run whose result was not uploaded yet).
 */
export function pairArrivals(
  sessions: readonly SessionRow[],
  arrivals: ReadonlyMap<string, readonly number[]>,
): { arrivedAt: Map<string, number>; unmatched: number } {
  const arrivedAt = new Map<string, number>();
  const ran = new Map<string, SessionRow[]>();
  for (const s of sessions) {
    if (s.ranAt === null) continue;
    const list = ran.get(s.checkId);
    if (list) list.push(s);
    else ran.set(s.checkId, [s]);
  }
  let unmatched = 0;
  for (const [checkId, times] of arrivals) {
    const runs = (ran.get(checkId) ?? []).sort((a, b) => (a.ranAt ?? 0) - (b.ranAt ?? 0));
    const sorted = [...times].sort((a, b) => a - b);
    for (const [i, run] of runs.entries()) {
      const arrival = sorted[i];
      if (arrival !== undefined) arrivedAt.set(run.id, arrival);
    }
    unmatched += Math.max(0, sorted.length - runs.length);
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

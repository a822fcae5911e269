import type { Db } from '../store/db.js';
import { jsonParam } from '../store/rows.js';
import type { AlertState, AlertStateName } from './state-machine.js';
import type { AlertVariables } from './variables.js';

interface Row {
  state: AlertStateName;
  failed_sessions: number;
  failing_since: Date | null;
  escalate_at: Date | null;
  state_since: Date;
  episode_id: string | null;
  episode_sent: boolean;
  reminders_sent: number;
  next_reminder_at: Date | null;
  ssl_alerted_at: Date | null;
  last_variables: AlertVariables | null;
}

export interface StoredAlertState {
  state: AlertState;
  /** What the last counted session told: reminders and time-based escalations tell it again. */
  lastVariables: AlertVariables | null;
}

function stateOf(row: Row): StoredAlertState {
  return {
    state: {
      state: row.state,
      failedSessions: row.failed_sessions,
      failingSince: row.failing_since,
      escalateAt: row.escalate_at,
      stateSince: row.state_since,
      episodeId: row.episode_id,
      episodeSent: row.episode_sent,
      remindersSent: row.reminders_sent,
      nextReminderAt: row.next_reminder_at,
      sslAlertedAt: row.ssl_alerted_at,
    },
    lastVariables: row.last_variables,
  };
}

/**
 * Locks the alert states of checks of an account (made PASSING first for a check that has none), by check id:
 * every change to a state happens under its lock. Made and locked in id order, so two transactions locking
 * overlapping sets never wait on each other in a circle.
 */
export async function lockAlertStates(
  tx: Db,
  accountId: string,
  checkIds: readonly string[],
  now: Date,
): Promise<Map<string, StoredAlertState>> {
  const ids = [...new Set(checkIds)].sort();
  const lock = (some: readonly string[]) =>
    tx.query<Row & { check_id: string }>(
      `SELECT * FROM alert_states WHERE account_id = $1 AND check_id = ANY($2::text[])
        ORDER BY check_id FOR UPDATE`,
      [accountId, some],
    );
  const rows = await lock(ids);
  // A check's first counted session makes its state: rarely, so the common case is the one statement above.
  const missing = ids.filter((id) => !rows.some((row) => row.check_id === id));
  if (missing.length > 0) {
    await tx.query(
      `INSERT INTO alert_states (account_id, check_id, state_since)
       SELECT $1, id, $3 FROM unnest($2::text[]) AS id ORDER BY id ON CONFLICT DO NOTHING`,
      [accountId, missing, now],
    );
    rows.push(...(await lock(missing)));
  }
  return new Map(rows.map((row) => [row.check_id, stateOf(row)]));
}

/** Whether two stored states hold the same values (times compared as times). */
export function sameAlertState(a: StoredAlertState, b: StoredAlertState): boolean {
  const value = (v: unknown) => (v instanceof Date ? v.getTime() : v);
  const keys = new Set([...Object.keys(a.state), ...Object.keys(b.state)]) as Set<keyof AlertState>;
  return (
    [...keys].every((key) => value(a.state[key]) === value(b.state[key])) &&
    JSON.stringify(a.lastVariables) === JSON.stringify(b.lastVariables)
  );
}

/** A calm PASSING state, with when it last had an SSL alert. */
export interface CalmPassing {
  sslAlertedAt: Date | null;
}

/**
 * The checks among these whose state is calm PASSING — no failure counted, no episode, nothing to remind of or
 * tell again — by check id; a check with another state, or none yet, is missing. A PASSED session leaves such a
 * state as it is.
 */
export async function calmPassingStates(
  db: Db,
  accountId: string,
  checkIds: readonly string[],
): Promise<Map<string, CalmPassing>> {
  const rows = await db.query<{ check_id: string; ssl_alerted_at: Date | null }>(
    `SELECT check_id, ssl_alerted_at FROM alert_states
      WHERE account_id = $1 AND check_id = ANY($2::text[]) AND state = 'PASSING' AND failed_sessions = 0
        AND failing_since IS NULL AND escalate_at IS NULL AND episode_id IS NULL AND NOT episode_sent
        AND reminders_sent = 0 AND next_reminder_at IS NULL AND last_variables IS NULL`,
    [accountId, [...new Set(checkIds)]],
  );
  return new Map(rows.map((r) => [r.check_id, { sslAlertedAt: r.ssl_alerted_at }]));
}

/** Locks the state when no other replica holds it; null when one does, or when it is gone. */
export async function tryLockAlertState(
  tx: Db,
  accountId: string,
  checkId: string,
): Promise<StoredAlertState | null> {
  const [row] = await tx.query<Row>(
    'SELECT * FROM alert_states WHERE account_id = $1 AND check_id = $2 FOR UPDATE SKIP LOCKED',
    [accountId, checkId],
  );
  return row ? stateOf(row) : null;
}

export async function saveAlertState(
  tx: Db,
  accountId: string,
  checkId: string,
  stored: StoredAlertState,
  now: Date,
): Promise<void> {
  const s = stored.state;
  await tx.query(
    `UPDATE alert_states SET state = $3, failed_sessions = $4, failing_since = $5, escalate_at = $6,
            state_since = $7, episode_id = $8, episode_sent = $9, reminders_sent = $10, next_reminder_at = $11,
            ssl_alerted_at = $12, last_variables = $13::jsonb, updated_at = $14
      WHERE account_id = $1 AND check_id = $2`,
    [
      accountId,
      checkId,
      s.state,
      s.failedSessions,
      s.failingSince,
      s.escalateAt,
      s.stateSince,
      s.episodeId,
      s.episodeSent,
      s.remindersSent,
      s.nextReminderAt,
      s.sslAlertedAt,
      stored.lastVariables === null ? null : jsonParam(stored.lastVariables),
      now,
    ],
  );
}

/** Whether time alone moves an alert state at `$1`: a reminder or an escalation is due. */
const ALERT_STATE_DUE = "(next_reminder_at <= $1 OR (escalate_at <= $1 AND state <> 'FAILING'))";

/** Whether the alert clock has work at `$1` (src/server/scheduler/sweeps.ts). */
export const ALERT_CLOCK_PROBE = `EXISTS (SELECT 1 FROM alert_states WHERE ${ALERT_STATE_DUE})`;

/** The checks whose reminder or time-based escalation is due. */
export async function dueAlertStates(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ account_id: string; check_id: string }[]> {
  return db.query(
    `SELECT account_id, check_id FROM alert_states WHERE ${ALERT_STATE_DUE}
      ORDER BY least(next_reminder_at, escalate_at) LIMIT $2`,
    [now, limit],
  );
}

/** A check's alert state as the API shows it; a check no counted session has finished yet is PASSING. */
export async function alertStateView(db: Db, accountId: string, checkId: string) {
  const [row] = await db.query<Row>('SELECT * FROM alert_states WHERE account_id = $1 AND check_id = $2', [
    accountId,
    checkId,
  ]);
  const s = row ? stateOf(row).state : null;
  return {
    checkId,
    state: s?.state ?? ('PASSING' as const),
    since: s ? s.stateSince.toISOString() : null,
    failedSessions: s?.failedSessions ?? 0,
    failingSince: s?.failingSince?.toISOString() ?? null,
    alerted: s?.episodeSent ?? false,
    remindersSent: s?.remindersSent ?? 0,
    nextReminderAt: s?.nextReminderAt?.toISOString() ?? null,
  };
}

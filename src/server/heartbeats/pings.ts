import { notFound } from '../common/errors.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import { loadChecks } from '../sessions/checks.js';
import { effectiveCheck } from '../sessions/effective.js';
import type { OnSessionsFinished } from '../sessions/finish.js';
import type { Db } from '../store/db.js';
import { toNumber } from '../store/rows.js';
import { type HeartbeatState, MAX_PING_BODY, type PingTiming } from './events.js';
import { lockMonitor, type MonitorRow, markPinged, syncHeartbeatRows } from './monitors.js';
import { recordHeartbeatOutcome } from './outcome.js';
import { checkOfPingToken } from './tokens.js';

/** A ping as the receiver got it. */
export interface Ping {
  /** PASSING for a ping, FAILING for a `/fail` ping: the job reports its own failure. */
  state: HeartbeatState;
  method: string;
  ip: string;
  userAgent: string;
  body: string | null;
}

/**
 * How a ping came compared with when it was expected, one period after the last ping: LATE after that (within the
 * grace, or after the check failed), EARLY more than the grace before it, ON_TIME otherwise and for a first ping.
 */
export function pingTiming(row: MonitorRow, now: Date): PingTiming {
  if (!row.last_ping_at) return 'ON_TIME';
  const expected = new Date(row.last_ping_at).getTime() + toNumber(row.period_ms);
  if (now.getTime() > expected) return 'LATE';
  if (now.getTime() < expected - toNumber(row.grace_ms)) return 'EARLY';
  return 'ON_TIME';
}

/**
 * Records a ping of the heartbeat check whose ping URL has this token: its event, its session (alerting moves in
 * the same transaction: a ping after a failure recovers the check), and a new wait of one period and the grace.
 * 404 for an unknown token.
 */
export async function receivePing(
  db: Db,
  token: string,
  ping: Ping,
  runs: { now: Date; onFinished: OnSessionsFinished },
): Promise<RunEffects> {
  const found = await checkOfPingToken(db, token);
  if (!found) throw notFound('Heartbeat', token);
  const effects = new RunEffects();
  const { now } = runs;
  await transact(db, async (tx) => {
    const [check] = await loadChecks(tx, { accountId: found.accountId, ids: [found.checkId] });
    if (!check) throw notFound('Heartbeat', token);
    let row = await lockMonitor(tx, check.id);
    if (!row) {
      await syncHeartbeatRows(tx, check.accountId, [check.id], now);
      row = (await lockMonitor(tx, check.id)) as MonitorRow;
    }
    const body = ping.body === null || ping.body === '' ? null : ping.body;
    await recordHeartbeatOutcome(
      tx,
      { accountId: check.accountId, checkId: check.id, name: check.name },
      {
        state: ping.state,
        source: `HTTP ${ping.method} from ${ping.ip}`,
        userAgent: ping.userAgent,
        timing: pingTiming(row, now),
        body: body?.slice(0, MAX_PING_BODY) ?? null,
        bodyTruncated: (body?.length ?? 0) > MAX_PING_BODY,
        reason: 'the job reported a failure (a ping to the /fail URL)',
      },
      {
        active: effectiveCheck(check).scheduled,
        runSource: 'TRIGGER_API',
        now,
        effects,
        onFinished: runs.onFinished,
      },
    );
    await markPinged(tx, row, ping.state, now);
  });
  return effects;
}

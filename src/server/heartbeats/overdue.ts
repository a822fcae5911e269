import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import { loadChecks } from '../sessions/checks.js';
import type { OnSessionsFinished } from '../sessions/finish.js';
import type { Db } from '../store/db.js';
import { toNumber } from '../store/rows.js';
import { anyOverdue, claimOverdue, type MonitorRow } from './monitors.js';
import { recordHeartbeatOutcome } from './outcome.js';

/** How many overdue heartbeats one transaction fails. */
const OVERDUE_BATCH = 100;

/** 90 s, 5 min, 2 h, 1 d: a period or grace as its user set it. */
export function spokenDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return `${Math.round(ms / 1000)} s`;
}

function overdueReason(row: MonitorRow): string {
  const window = `${spokenDuration(toNumber(row.period_ms))} + ${spokenDuration(toNumber(row.grace_ms))} grace`;
  const since = new Date(row.since).toISOString();
  return row.state === 'FAILING'
    ? `still no ping, another period after the last failure (${since})`
    : `no ping within ${window} of ${row.last_ping_at ? 'the last ping' : 'the start of monitoring'} (${since})`;
}

/**
 * Fails every heartbeat check whose wait ended (docs/heartbeats.md): a FAILING event and a FAILED session each,
 * which alert like any failed run. Rows are claimed a batch per transaction with SKIP LOCKED, so every replica can
 * run this at once and each missed period is recorded once; a restart picks up what is due when it comes back.
 */
export async function failOverdueHeartbeats(
  db: Db,
  now: Date,
  onFinished: OnSessionsFinished,
): Promise<RunEffects> {
  const effects = new RunEffects();
  if (!(await anyOverdue(db, now))) return effects;
  let claimed = OVERDUE_BATCH;
  while (claimed === OVERDUE_BATCH) {
    claimed = await transact(db, async (tx) => {
      const rows = await claimOverdue(tx, now, OVERDUE_BATCH);
      const names = new Map(
        (await loadChecks(tx, { ids: rows.map((r) => r.check_id) })).map((c) => [c.id, c.name]),
      );
      for (const row of rows) {
        await recordHeartbeatOutcome(
          tx,
          { accountId: row.account_id, checkId: row.check_id, name: names.get(row.check_id) ?? '' },
          {
            state: 'FAILING',
            source: 'OVERDUE (recorded by the control plane: no ping came in time)',
            userAgent: '',
            timing: null,
            body: null,
            bodyTruncated: false,
            reason: overdueReason(row),
          },
          { active: true, runSource: 'SCHEDULER', now, effects, onFinished },
        );
      }
      return rows.length;
    });
  }
  return effects;
}

import { maintenanceStore, maintenanceTagsOf } from '../../maintenance/active.js';
import { maintenancesFrom } from '../../maintenance/occurrences.js';
import { updatesOf } from '../../maintenance/updates.js';
import { DAY_MS, periodStart } from '../../retention/periods.js';
import { loadChecks } from '../../sessions/checks.js';
import type { Db } from '../../store/db.js';
import { toNumber } from '../../store/rows.js';
import { feedingChecks } from '../feeding.js';
import type { Incident } from '../incident-schema.js';
import { listIncidents } from '../incidents.js';
import type { StatusPageDocument } from '../schema.js';
import { statusPageServices } from '../services.js';
import { type ServiceState, serviceState, worstState } from './states.js';

/** Days of uptime bars a service shows, today included. */
export const UPTIME_DAYS = 90;
/** Completed maintenances shown, going back this far. */
const COMPLETED_MAINTENANCE_MS = 7 * DAY_MS;

export interface UptimeDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** Percent of its checks' runs that did not fail; null for a day without runs. */
  uptime: number | null;
  incidents: number;
}

export interface PublicService {
  id: string;
  name: string;
  state: ServiceState;
  days: UptimeDay[];
  /** Uptime over the days with runs; null without any. */
  uptime: number | null;
}

export interface PublicMaintenance {
  name: string;
  startsAt: string;
  endsAt: string;
  status: 'SCHEDULED' | 'IN_PROGRESS' | 'COMPLETED';
  services: string[];
  /** Oldest first. */
  updates: { status: string; description: string; created_at: string }[];
}

export interface PublicPage {
  name: string;
  url: string;
  state: ServiceState;
  cards: { name: string; services: PublicService[] }[];
  openIncidents: (Incident & { serviceName: string })[];
  pastIncidents: (Incident & { serviceName: string })[];
  maintenances: PublicMaintenance[];
  generatedAt: string;
}

const dayOf = (time: Date | number) => new Date(time).toISOString().slice(0, 10);

/** Percent of these runs that did not fail (two decimals); null without runs. */
export function uptimeOf(counts: readonly { count: number; failures: number }[]): number | null {
  const runs = counts.reduce((sum, c) => sum + c.count, 0);
  const failures = counts.reduce((sum, c) => sum + c.failures, 0);
  return runs === 0 ? null : Math.round(((runs - failures) / runs) * 10_000) / 100;
}

/**
 * Runs and failures per check and day over the window: day rollups, and the closed hours of the days not rolled up
 * yet: today's, and the day before's until its day rollup exists (its last hour closes a few minutes after midnight).
 */
export async function dailyCounts(
  db: Db,
  accountId: string,
  checkIds: readonly string[],
  from: Date,
  now: Date,
) {
  const rows = await db.query<{
    check_id: string;
    day: string;
    count: number | string;
    failures: number | string;
  }>(
    `SELECT check_id, to_char(period_start AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            sum(count) AS count, sum(failures) AS failures
       FROM check_rollups r
      WHERE account_id = $1 AND check_id = ANY($2::text[])
        AND ((resolution = 'day' AND period_start >= $3)
          OR (resolution = 'hour' AND period_start >= $4 AND NOT EXISTS (
                SELECT 1 FROM check_rollups d
                 WHERE d.account_id = r.account_id AND d.check_id = r.check_id AND d.location = r.location
                   AND d.resolution = 'day'
                   AND d.period_start = date_bin('1 day', r.period_start, TIMESTAMPTZ '2000-01-01 00:00:00+00'))))
      GROUP BY check_id, day`,
    [accountId, checkIds, from, new Date(periodStart(now, DAY_MS).getTime() - DAY_MS)],
  );
  return rows.map((r) => ({ ...r, count: toNumber(r.count), failures: toNumber(r.failures) }));
}

/** Everything a status page shows, read from the store at `now`. */
export async function publicPageOf(
  db: Db,
  accountId: string,
  page: StatusPageDocument,
  now: Date,
): Promise<PublicPage> {
  const from = new Date(periodStart(now, DAY_MS).getTime() - (UPTIME_DAYS - 1) * DAY_MS);
  const serviceIds = [...new Set(page.cards.flatMap((c) => c.services.map((s) => s.id)))];
  const names = new Map(
    (await statusPageServices(db).list(accountId))
      .filter((s) => serviceIds.includes(s.id))
      .map((s) => [s.id, s.document.name]),
  );
  const feeding = feedingChecks(await loadChecks(db, { accountId, activatedOnly: true }));
  const checkIds = [...names.keys()].flatMap((id) => (feeding.get(id) ?? []).map((c) => c.id));
  const alertStates = new Map(
    (
      await db.query<{ check_id: string; state: string }>(
        'SELECT check_id, state FROM alert_states WHERE account_id = $1 AND check_id = ANY($2::text[])',
        [accountId, checkIds],
      )
    ).map((r) => [r.check_id, r.state]),
  );
  const counts = await dailyCounts(db, accountId, checkIds, from, now);
  const incidents = (await listIncidents(db, accountId, { limit: 100, since: from })).filter((i) =>
    names.has(i.serviceId),
  );

  const windows = await maintenanceStore(db).list(accountId);
  const updates = await updatesOf(
    db,
    accountId,
    windows.map((w) => w.id),
  );
  const maintenances: PublicMaintenance[] = [];
  const inMaintenance = new Set<string>();
  for (const window of windows) {
    const covered = [...names.keys()].filter((id) =>
      (feeding.get(id) ?? []).some((c) => maintenanceTagsOf(c).some((t) => window.document.tags.includes(t))),
    );
    if (covered.length === 0) continue;
    for (const m of maintenancesFrom(
      window,
      new Date(now.getTime() - COMPLETED_MAINTENANCE_MS),
      3,
      now,
      updates,
    )) {
      if (m.status === 'IN_PROGRESS') for (const id of covered) inMaintenance.add(id);
      maintenances.push({
        name: window.document.name,
        startsAt: m.startsAt,
        endsAt: m.endsAt,
        status: m.status,
        services: covered.map((id) => names.get(id) as string),
        updates: m.updates.map((u) => ({
          status: u.status,
          description: u.description,
          created_at: u.created_at,
        })),
      });
    }
  }

  const serviceOf = (id: string): PublicService => {
    const checks = feeding.get(id) ?? [];
    const own = new Set(checks.map((c) => c.id));
    const days: UptimeDay[] = [];
    for (let day = from.getTime(); day <= now.getTime(); day += DAY_MS) {
      const date = dayOf(day);
      days.push({
        date,
        uptime: uptimeOf(counts.filter((c) => c.day === date && own.has(c.check_id))),
        incidents: incidents.filter((i) => i.serviceId === id && dayOf(new Date(i.created_at)) === date)
          .length,
      });
    }
    return {
      id,
      name: names.get(id) as string,
      state: serviceState({
        checkStates: checks.map((c) => alertStates.get(c.id) ?? 'PASSING'),
        openSeverities: incidents
          .filter((i) => i.serviceId === id && i.status !== 'RESOLVED')
          .map((i) => i.severity),
        inMaintenance: inMaintenance.has(id),
      }),
      days,
      uptime: uptimeOf(counts.filter((c) => own.has(c.check_id))),
    };
  };
  const services = new Map([...names.keys()].map((id) => [id, serviceOf(id)]));
  const named = (i: Incident) => ({ ...i, serviceName: names.get(i.serviceId) as string });
  const order = { IN_PROGRESS: 0, SCHEDULED: 1, COMPLETED: 2 } as const;
  return {
    name: page.name,
    url: page.url,
    state: worstState([...services.values()].map((s) => s.state)),
    cards: page.cards.map((card) => ({
      name: card.name,
      services: card.services.flatMap((s) =>
        services.has(s.id) ? [services.get(s.id) as PublicService] : [],
      ),
    })),
    openIncidents: incidents.filter((i) => i.status !== 'RESOLVED').map(named),
    pastIncidents: incidents.filter((i) => i.status === 'RESOLVED').map(named),
    maintenances: maintenances.sort(
      (a, b) => order[a.status] - order[b.status] || a.startsAt.localeCompare(b.startsAt),
    ),
    generatedAt: now.toISOString(),
  };
}

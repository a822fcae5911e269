import { percentileOf } from '../retention/histogram.js';
import { DAY_MS, HOUR_MS, periodStart } from '../retention/periods.js';
import { resultHistogramsSql, rolledUpUntil } from '../retention/rollups.js';
import { UNRECORDED_SOURCES } from '../sessions/results-query.js';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';
import type { Aggregate, AggregateWindow, CheckAggregates, CheckSummary } from './aggregate.js';

/** The windows an aggregate covers, each with the step of its series. */
export const WINDOWS: Record<AggregateWindow, { ms: number; step: number }> = {
  '1h': { ms: HOUR_MS, step: 60_000 },
  '24h': { ms: DAY_MS, step: HOUR_MS },
  '7d': { ms: 7 * DAY_MS, step: HOUR_MS },
  '30d': { ms: 30 * DAY_MS, step: DAY_MS },
};

/** The counts and histogram of one check at one location over one step. */
interface Histogram {
  checkId: string;
  location: string;
  periodStart: number;
  count: number;
  failures: number;
  degraded: number;
  buckets: Map<number, number>;
}

interface Row {
  check_id: string;
  location: string;
  period_start: Date;
  count: number;
  failures: number;
  degraded: number;
  rt_keys: number[];
  rt_counts: number[];
}

/** A margin below the window where sessions of its results may have started (a session is minutes long). */
const SESSION_MARGIN_MS = DAY_MS;

/**
 * The histograms of the given checks (every check of the account when null) over the window that ends at `now`,
 * one per check, location and step. Hours already rolled up are read from the hourly rollups; the rest (the last
 * hour or so, or the whole window of `1h`, whose steps are minutes) from raw results, with the rollups' own SQL.
 */
async function histograms(
  db: Db,
  accountId: string,
  checkIds: readonly string[] | null,
  window: AggregateWindow,
  now: Date,
): Promise<{ from: Date; to: Date; list: Histogram[] }> {
  const { ms, step } = WINDOWS[window];
  // The window is whole steps: it ends with the step that holds `now`.
  const to = new Date(periodStart(now, step).getTime() + step);
  const from = new Date(to.getTime() - ms);
  const rolled = step >= HOUR_MS ? ((await rolledUpUntil(db)) ?? from) : from;
  const rawFrom = new Date(Math.max(from.getTime(), rolled.getTime()));
  const rows: Row[] = [];
  if (rawFrom > from) {
    rows.push(
      ...(await db.query<Row>(
        `SELECT check_id, location, period_start, count, failures, degraded, rt_keys, rt_counts FROM check_rollups
          WHERE account_id = $1 AND resolution = 'hour' AND period_start >= $2 AND period_start < $3
            AND ($4::text[] IS NULL OR check_id = ANY($4::text[]))`,
        [accountId, from, rawFrom, checkIds],
      )),
    );
  }
  const stepSeconds = step / 1000;
  rows.push(
    ...(await db.query<Row>(
      resultHistogramsSql({
        period: `to_timestamp(floor(extract(epoch FROM r.created_at) / ${stepSeconds}) * ${stepSeconds})`,
        where:
          's.account_id = $4 AND ($5::text[] IS NULL OR s.check_id = ANY($5::text[])) AND s.started_at >= $6',
      }),
      [rawFrom, to, UNRECORDED_SOURCES, accountId, checkIds, new Date(rawFrom.getTime() - SESSION_MARGIN_MS)],
    )),
  );
  const merged = new Map<string, Histogram>();
  for (const row of rows) {
    const start = periodStart(new Date(row.period_start), step).getTime();
    const key = `${row.check_id}\u0000${row.location}\u0000${start}`;
    let histogram = merged.get(key);
    if (!histogram) {
      histogram = {
        checkId: row.check_id,
        location: row.location,
        periodStart: start,
        count: 0,
        failures: 0,
        degraded: 0,
        buckets: new Map(),
      };
      merged.set(key, histogram);
    }
    add(histogram, row);
  }
  return { from, to, list: [...merged.values()] };
}

function add(into: Omit<Histogram, 'checkId' | 'location' | 'periodStart'>, row: Row | Histogram): void {
  into.count += Number(row.count);
  into.failures += Number(row.failures);
  into.degraded += Number(row.degraded);
  if ('buckets' in row) {
    for (const [key, n] of row.buckets) into.buckets.set(key, (into.buckets.get(key) ?? 0) + n);
    return;
  }
  for (const [i, key] of row.rt_keys.entries())
    into.buckets.set(Number(key), (into.buckets.get(Number(key)) ?? 0) + Number(row.rt_counts[i] ?? 0));
}

/** The aggregate of any number of histograms. */
function aggregateOf(parts: readonly Histogram[]): Aggregate {
  const sum = { count: 0, failures: 0, degraded: 0, buckets: new Map<number, number>() };
  for (const part of parts) add(sum, part);
  const keys = [...sum.buckets.keys()].sort((a, b) => a - b);
  const counts = keys.map((k) => sum.buckets.get(k) ?? 0);
  const at = (q: number) => percentileOf(keys, counts, q);
  const [p50, p95, p99] = [at(0.5), at(0.95), at(0.99)];
  return {
    count: sum.count,
    failures: sum.failures,
    degraded: sum.degraded,
    successRatio:
      sum.count === 0 ? null : Math.round(((sum.count - sum.failures) / sum.count) * 10_000) / 10_000,
    responseTime: p50 === null || p95 === null || p99 === null ? null : { p50, p95, p99 },
  };
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** One check's aggregates over a window (whole steps, the last one holding `now`), in total, per location and per step. */
export async function checkAggregates(
  db: Db,
  accountId: string,
  checkId: string,
  window: AggregateWindow,
  now: Date,
  location?: string,
): Promise<CheckAggregates> {
  const { from, to, list: all } = await histograms(db, accountId, [checkId], window, now);
  const list = location === undefined ? all : all.filter((h) => h.location === location);
  const byStep = [...groupBy(list, (h) => String(h.periodStart))].sort(([a], [b]) => Number(a) - Number(b));
  return {
    checkId,
    window,
    from: iso(from),
    to: iso(to),
    stepMs: WINDOWS[window].step,
    total: aggregateOf(list),
    locations: [...groupBy(list, (h) => h.location)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, parts]) => ({ location: name, ...aggregateOf(parts) })),
    series: byStep.map(([start, parts]) => ({
      periodStart: iso(new Date(Number(start))),
      ...aggregateOf(parts),
    })),
    locationSeries: list
      .slice()
      .sort((a, b) => a.periodStart - b.periodStart || a.location.localeCompare(b.location))
      .map((h) => ({ periodStart: iso(new Date(h.periodStart)), location: h.location, ...aggregateOf([h]) })),
  };
}

/** Every check's aggregate over a window (checks without results in it included), with a median per step. */
export async function checkSummaries(
  db: Db,
  accountId: string,
  checkIds: readonly string[],
  window: AggregateWindow,
  now: Date,
): Promise<{ from: string; to: string; stepMs: number; checks: CheckSummary[] }> {
  const { step, ms } = WINDOWS[window];
  const { from, to, list } = await histograms(db, accountId, checkIds, window, now);
  const byCheck = groupBy(list, (h) => h.checkId);
  const steps = Math.round(ms / step);
  return {
    from: iso(from),
    to: iso(to),
    stepMs: step,
    checks: checkIds.map((checkId) => {
      const parts = byCheck.get(checkId) ?? [];
      const perStep = groupBy(parts, (h) => String(h.periodStart));
      const responseTimes = Array.from({ length: steps }, (_, i) => {
        const stepParts = perStep.get(String(from.getTime() + i * step));
        return stepParts ? (aggregateOf(stepParts).responseTime?.p50 ?? null) : null;
      });
      return { checkId, ...aggregateOf(parts), responseTimes };
    }),
  };
}

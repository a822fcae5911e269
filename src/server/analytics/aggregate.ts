/** Aggregates of results as the API answers them, shared with the web app (web/src/types.ts): no server code here. */

export type AggregateWindow = '1h' | '24h' | '7d' | '30d';

/** Counts and response-time percentiles of FINAL results (CANCELLED ones left out, as in rollups). */
export interface Aggregate {
  count: number;
  failures: number;
  degraded: number;
  /** Share of the results that did not fail (0–1); null when there were none. */
  successRatio: number | null;
  /** Milliseconds, within 2 % of the exact value; null when no result measured a response. */
  responseTime: { p50: number; p95: number; p99: number } | null;
}

export interface CheckAggregates {
  checkId: string;
  window: AggregateWindow;
  from: string;
  to: string;
  /** Milliseconds between the series' points. */
  stepMs: number;
  total: Aggregate;
  locations: (Aggregate & { location: string })[];
  /** Per step, all locations together, oldest first; steps without results are absent. */
  series: (Aggregate & { periodStart: string })[];
  /** Per step and location. */
  locationSeries: (Aggregate & { periodStart: string; location: string })[];
}

export interface CheckSummary extends Aggregate {
  checkId: string;
  /** Per step, all locations together, oldest first: the median response time, or null for a step without one. */
  responseTimes: (number | null)[];
}

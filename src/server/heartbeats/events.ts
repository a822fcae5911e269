import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { ResourceStore, type StoredResource } from '../store/resources.js';
import { iso } from '../store/rows.js';

/** PASSING: a ping arrived; FAILING: a failure was reported (or, by the scheduler, a ping is overdue). */
export const HEARTBEAT_STATES = ['PASSING', 'FAILING'] as const;
export type HeartbeatState = (typeof HEARTBEAT_STATES)[number];

/** How a ping came compared with when it was expected (one period after the last ping); null for no ping. */
export const PING_TIMINGS = ['EARLY', 'ON_TIME', 'LATE'] as const;
export type PingTiming = (typeof PING_TIMINGS)[number];

/** The most of a ping's body an event keeps (characters); a longer body is cut there, and says so. */
export const MAX_PING_BODY = 10_000;

export interface HeartbeatEvent {
  state: HeartbeatState;
  source: string;
  userAgent: string;
  timing: PingTiming | null;
  /** The ping's body (a job's output, say), at most MAX_PING_BODY characters; null without one. */
  body: string | null;
  bodyTruncated: boolean;
  /** The check session the event made; null when the check is deactivated (its pings are only recorded). */
  sessionId: string | null;
}

export interface HeartbeatEventDocument extends HeartbeatEvent {
  checkId: string;
  timestamp: string;
}

/** Events are kept this long: two of the longest stats period, so previousPeriod can be computed. */
const RETENTION_DAYS = 14;

const store = (db: Db) => new ResourceStore<HeartbeatEventDocument>(db, 'heartbeat-event');

export const heartbeatEventSchema = z.object({
  id: z.string(),
  state: z.string(),
  timestamp: z.string(),
  source: z.string(),
  userAgent: z.string(),
  timing: z.enum(PING_TIMINGS).nullable(),
  body: z.string().nullable(),
  bodyTruncated: z.boolean(),
  checkSessionId: z.string().nullable(),
});

const periodStatsSchema = z.object({
  successRatio: z.object({ previousPeriod: z.number(), currentPeriod: z.number() }),
  totalEntitiesCurrentPeriod: z.number().int(),
});
export const heartbeatStatsSchema = z.object({
  last24Hours: periodStatsSchema,
  last7Days: periodStatsSchema,
});

export function heartbeatEventOf(stored: StoredResource<HeartbeatEventDocument>) {
  const { state, timestamp, source, userAgent } = stored.document;
  return {
    id: stored.id,
    state,
    timestamp,
    source,
    userAgent,
    // Events recorded before pings were timed and kept their bodies have neither.
    timing: stored.document.timing ?? null,
    body: stored.document.body ?? null,
    bodyTruncated: stored.document.bodyTruncated ?? false,
    checkSessionId: stored.document.sessionId ?? null,
  };
}

/** Records one event of a heartbeat check, and forgets those older than the stats need. */
export async function recordHeartbeatEvent(
  db: Db,
  accountId: string,
  checkId: string,
  event: HeartbeatEvent & { id?: string },
  now: Date,
): Promise<StoredResource<HeartbeatEventDocument>> {
  const { id = randomUUID(), ...rest } = event;
  const stored = await store(db).create(accountId, id, { checkId, ...rest, timestamp: now.toISOString() });
  await db.query(
    `DELETE FROM resources WHERE account_id = $1 AND kind = 'heartbeat-event' AND document->>'checkId' = $2
        AND created_at < now() - make_interval(days => $3)`,
    [accountId, checkId, RETENTION_DAYS],
  );
  return stored;
}

export async function getHeartbeatEvent(
  db: Db,
  accountId: string,
  checkId: string,
  id: string,
): Promise<StoredResource<HeartbeatEventDocument> | null> {
  const found = await store(db).get(accountId, id);
  return found && found.document.checkId === checkId ? found : null;
}

/** The newest `limit` events, newest first. */
export async function listHeartbeatEvents(
  db: Db,
  accountId: string,
  checkId: string,
  limit: number,
): Promise<StoredResource<HeartbeatEventDocument>[]> {
  const rows = await db.query<{ id: string; document: HeartbeatEventDocument; created_at: unknown }>(
    `SELECT id, document, created_at FROM resources
      WHERE account_id = $1 AND kind = 'heartbeat-event' AND document->>'checkId' = $2
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [accountId, checkId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    document: r.document,
    created_at: iso(r.created_at),
    updated_at: null,
  }));
}

/** Percent of events that were not FAILING, over the current and the previous period of each length. */
export async function heartbeatStats(db: Db, accountId: string, checkId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT
       count(*) FILTER (WHERE created_at > now() - interval '1 day') AS day_total,
       count(*) FILTER (WHERE created_at > now() - interval '1 day' AND document->>'state' <> 'FAILING') AS day_ok,
       count(*) FILTER (WHERE created_at <= now() - interval '1 day' AND created_at > now() - interval '2 days') AS prev_day_total,
       count(*) FILTER (WHERE created_at <= now() - interval '1 day' AND created_at > now() - interval '2 days'
                          AND document->>'state' <> 'FAILING') AS prev_day_ok,
       count(*) FILTER (WHERE created_at > now() - interval '7 days') AS week_total,
       count(*) FILTER (WHERE created_at > now() - interval '7 days' AND document->>'state' <> 'FAILING') AS week_ok,
       count(*) FILTER (WHERE created_at <= now() - interval '7 days') AS prev_week_total,
       count(*) FILTER (WHERE created_at <= now() - interval '7 days' AND document->>'state' <> 'FAILING') AS prev_week_ok
       FROM resources WHERE account_id = $1 AND kind = 'heartbeat-event' AND document->>'checkId' = $2`,
    [accountId, checkId],
  );
  const n = (key: string) => Number(row?.[key] ?? 0);
  const ratio = (ok: string, total: string) =>
    n(total) === 0 ? 0 : Math.round((n(ok) / n(total)) * 10_000) / 100;
  return {
    last24Hours: {
      successRatio: {
        previousPeriod: ratio('prev_day_ok', 'prev_day_total'),
        currentPeriod: ratio('day_ok', 'day_total'),
      },
      totalEntitiesCurrentPeriod: n('day_total'),
    },
    last7Days: {
      successRatio: {
        previousPeriod: ratio('prev_week_ok', 'prev_week_total'),
        currentPeriod: ratio('week_ok', 'week_total'),
      },
      totalEntitiesCurrentPeriod: n('week_total'),
    },
  };
}

export async function deleteHeartbeatEvents(db: Db, accountId: string, checkId: string): Promise<void> {
  await store(db).deleteWhere(accountId, { checkId });
}

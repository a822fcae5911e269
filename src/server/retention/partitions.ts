import type { Db } from '../store/db.js';
import { DAY_MS, dayName, dayOfName, periodStart } from './periods.js';

/**
 * The day partitions of `check_results` (migration 050 on PostgreSQL, 220 on PGlite): `check_results_YYYYMMDD`
 * holds that UTC day, `check_results_before_YYYYMMDD` (the table as it was before partitioning) everything before
 * that day, and `check_results_default` whatever has no partition of its own.
 */

/** Days made ahead of today: a job that fails, or a control plane that is down, has this long before it matters. */
export const DAYS_AHEAD = 3;

/** An arbitrary constant: one replica at a time makes or drops partitions; the others skip until their next run. */
const PARTITION_LOCK = 7_261_050;

/**
 * Making (attaching) or dropping a partition locks `check_results` for an instant, but waits behind any transaction
 * that reads it, and results queue behind the wait: give up after this long and try at the next run.
 */
const LOCK_TIMEOUT = '2s';

const DEFAULT_PARTITION = 'check_results_default';

/** PostgreSQL's error code for a lock_timeout that ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

interface Partition {
  name: string;
  /** Null: from the beginning of time. */
  from: Date | null;
  to: Date;
}

/** The names of the partitions of `check_results`, sorted. */
export async function resultPartitionNames(db: Db): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'check_results'::regclass ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

async function resultPartitions(db: Db): Promise<Partition[]> {
  return (await resultPartitionNames(db)).flatMap((name): Partition[] => {
    const day = /^check_results_(\d{8})$/.exec(name)?.[1];
    if (day) return [{ name, from: dayOfName(day), to: new Date(dayOfName(day).getTime() + DAY_MS) }];
    const before = /^check_results_before_(\d{8})$/.exec(name)?.[1];
    return before ? [{ name, from: null, to: dayOfName(before) }] : [];
  });
}

/**
 * Makes the partitions of today and DAYS_AHEAD days after it, and of any day whose results went to the default
 * partition meanwhile (they move into it). Returns how many it made.
 */
export async function ensureResultPartitions(db: Db, now: Date): Promise<number> {
  const partitions = await resultPartitions(db);
  const covered = (day: Date) => partitions.some((p) => (p.from === null || p.from <= day) && day < p.to);
  const today = periodStart(now, DAY_MS);
  const days = Array.from({ length: DAYS_AHEAD + 1 }, (_, i) => today.getTime() + i * DAY_MS);
  const strays = await db.query<{ day: number | string }>(
    `SELECT DISTINCT floor(extract(epoch FROM created_at) / 86400)::bigint * 86400000 AS day FROM ${DEFAULT_PARTITION}`,
  );
  let made = 0;
  for (const time of new Set([...days, ...strays.map((s) => Number(s.day))])) {
    const day = new Date(time);
    if (!covered(day) && (await makeDayPartition(db, day))) made += 1;
  }
  return made;
}

/** A new table, the day's rows of the default partition moved into it, then attached: all or nothing. */
async function makeDayPartition(db: Db, day: Date): Promise<boolean> {
  return partitionWork(db, async (tx) => {
    const name = `check_results_${dayName(day)}`;
    const [found] = await tx.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
      name,
    ]);
    if (found?.exists) return false;
    const end = new Date(day.getTime() + DAY_MS);
    await tx.exec(
      `CREATE TABLE ${name} (LIKE check_results INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION)`,
    );
    await tx.query(
      `WITH moved AS (DELETE FROM ${DEFAULT_PARTITION} WHERE created_at >= $1 AND created_at < $2 RETURNING *)
       INSERT INTO ${name} SELECT * FROM moved`,
      [day, end],
    );
    await tx.exec(
      `ALTER TABLE check_results ATTACH PARTITION ${name}
         FOR VALUES FROM ('${day.toISOString()}') TO ('${end.toISOString()}')`,
    );
    return true;
  });
}

/**
 * The partitions that may hold results from before `cutoff` once those ending by then are dropped: one that starts
 * before it (or was not dropped) and the default partition. A prune deletes such rows one by one.
 */
export async function resultPartitionsBefore(db: Db, cutoff: Date): Promise<string[]> {
  const reaching = (await resultPartitions(db)).filter((p) => p.from === null || p.from < cutoff);
  return [...reaching.map((p) => p.name), DEFAULT_PARTITION];
}

/** Drops every partition that ends at or before `cutoff`, whole; returns how many it dropped. */
export async function dropExpiredPartitions(db: Db, cutoff: Date): Promise<number> {
  let dropped = 0;
  for (const partition of await resultPartitions(db)) {
    if (partition.to > cutoff) continue;
    const done = await partitionWork(db, async (tx) => {
      await tx.exec(`DROP TABLE IF EXISTS ${partition.name}`);
      return true;
    });
    if (done) dropped += 1;
  }
  return dropped;
}

/**
 * Runs `fn` holding the partition lock, or does nothing (false) when another replica holds it or `check_results`
 * stayed locked past LOCK_TIMEOUT (the next run tries again).
 */
async function partitionWork(db: Db, fn: (tx: Db) => Promise<boolean>): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      const [lock] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        PARTITION_LOCK,
      ]);
      if (!lock?.locked) return false;
      await tx.exec(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      return await fn(tx);
    });
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
    throw error;
  }
}

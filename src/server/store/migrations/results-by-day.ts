/**
 * The SQL that makes `check_results` a table partitioned by day without copying a row: the table as it is becomes
 * the first partition, `check_results_before_YYYYMMDD`, holding everything before the end of the day of its newest
 * row (or of today), dropped whole once that day is past the retention period. Day partitions after it are made
 * ahead by the retention job (src/server/retention/partitions.ts); the default partition takes a result whose day
 * has none yet, and the job moves such rows when it makes that day's partition.
 *
 * PostgreSQL's stores were partitioned by migration 050, whose results still had a key on their session; PGlite's
 * by migration 220, after migration 180 dropped that key.
 */
export function resultsByDaySql(options: { sessionKey: boolean }): string {
  const session = options.sessionKey
    ? 'session_id text NOT NULL REFERENCES check_sessions(id) ON DELETE CASCADE,'
    : 'session_id text NOT NULL,';
  return `
DO $$
DECLARE
  newest timestamptz := (SELECT max(created_at) FROM check_results);
  upper_day date := greatest(
    (now() AT TIME ZONE 'UTC')::date,
    coalesce((newest AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date)
  ) + 1;
  legacy text := 'check_results_before_' || to_char(upper_day, 'YYYYMMDD');
BEGIN
  EXECUTE format('ALTER TABLE check_results RENAME TO %I', legacy);
  -- Its key becomes the parent's (id, created_at).
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT check_results_pkey', legacy);
  CREATE TABLE check_results (
    id text NOT NULL,
    ${session}
    account_id text NOT NULL,
    run_id text NOT NULL,
    result_type text NOT NULL,
    attempt integer NOT NULL,
    record jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'PASSED',
    location text NOT NULL DEFAULT '',
    response_time double precision,
    PRIMARY KEY (id, created_at)
  ) PARTITION BY RANGE (created_at);
  CREATE INDEX check_results_by_session ON check_results (session_id, created_at);
  CREATE INDEX check_results_time ON check_results (created_at);
  EXECUTE format(
    'ALTER TABLE check_results ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
    legacy,
    to_char(upper_day, 'YYYY-MM-DD') || ' 00:00:00+00'
  );
  CREATE TABLE check_results_default PARTITION OF check_results DEFAULT;
END
$$;
`;
}

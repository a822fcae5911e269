import type { Migration } from './index.js';

/**
 * The scheduler's index: one row per check agents run (not heartbeats) with its schedule and the start of the next
 * interval it may claim (docs/control-plane.md, Scheduling). Replaces `schedule_slots`, one row per claim.
 *
 * Existing checks get their rows here, with the schedule of `scheduleOf` (src/checks/schedule.ts) written in SQL
 * (frozen with this migration: the server keeps rows in step from then on) and, when they were ever claimed, the
 * interval after the last claim due next, so an upgrade schedules no interval twice.
 */
export const checkSchedules: Migration = {
  name: '060-check-schedules',
  sql: `
CREATE TABLE check_schedules (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  period_ms bigint NOT NULL CHECK (period_ms > 0),
  shift_ms bigint NOT NULL,
  -- The start of the next interval to schedule; every interval that started before it is done (or was missed).
  next_due_at timestamptz NOT NULL,
  -- The check and its group are activated: false keeps the row (and its last claim) without scheduling it.
  active boolean NOT NULL
);
CREATE INDEX check_schedules_due ON check_schedules (next_due_at) WHERE active;

WITH stored AS (
  SELECT c.id,
         c.activated AND coalesce(g.definition->'activated', 'true'::jsonb) <> 'false'::jsonb AS active,
         CASE WHEN jsonb_typeof(c.definition->'frequency') = 'number'
              THEN (c.definition->>'frequency')::numeric ELSE 10 END AS f,
         CASE WHEN jsonb_typeof(c.definition->'frequencyOffset') = 'number'
              THEN (c.definition->>'frequencyOffset')::numeric END AS o
    FROM checks c LEFT JOIN check_groups g ON g.id = c.group_id AND g.account_id = c.account_id
   WHERE c.check_type <> 'HEARTBEAT'
), periods AS (
  SELECT id, active, f, o,
         CASE WHEN f = 0 THEN coalesce(o, 10) * 1000 ELSE f * 60000 END AS period,
         CASE WHEN f <= 60 THEN floor(f * 10) ELSE ceil(f / 60) END AS steps
    FROM stored
), schedules AS (
  SELECT id, active, period::bigint AS period_ms,
         (CASE WHEN f = 0 OR o IS NULL THEN 0
               ELSE mod(mod(o, steps) * floor(period / steps), period) END)::bigint AS shift_ms
    FROM periods
), last_claims AS (
  SELECT check_id, (extract(epoch FROM max(slot_start)) * 1000)::bigint AS last_ms
    FROM schedule_slots GROUP BY check_id
)
INSERT INTO check_schedules (check_id, period_ms, shift_ms, next_due_at, active)
SELECT s.id, s.period_ms, s.shift_ms,
       CASE WHEN l.last_ms IS NULL THEN timestamptz 'epoch'
            ELSE timestamptz 'epoch' + interval '1 millisecond'
                 * (floor((l.last_ms - s.shift_ms)::numeric / s.period_ms) * s.period_ms + s.period_ms + s.shift_ms)::float8
       END,
       s.active
  FROM schedules s LEFT JOIN last_claims l ON l.check_id = s.id;

DROP TABLE schedule_slots;
`,
};

import type { Migration } from './index.js';

/**
 * Sub-minute checks start at a phase of their own within their period (`subMinutePhaseMs`, src/checks/schedule.ts,
 * written in SQL here), no longer all at multiples of the period since the epoch. Each row moves to the first
 * interval of its new schedule that starts after its last claim (`nextDueAfterChange`), so no interval runs twice.
 */
export const subMinutePhase: Migration = {
  name: '080-sub-minute-phase',
  sql: `
WITH phased AS (
  SELECT check_id,
         (('x' || substr(md5(check_id), 1, 8))::bit(32)::bigint % (period_ms / 100)) * 100 AS shift,
         (extract(epoch FROM next_due_at) * 1000)::bigint - period_ms AS last_ms
    FROM check_schedules
   WHERE period_ms < 60000
)
UPDATE check_schedules s
   SET shift_ms = p.shift,
       next_due_at = timestamptz 'epoch' + interval '1 millisecond'
         * (floor((p.last_ms - p.shift)::numeric / s.period_ms) * s.period_ms + s.period_ms + p.shift)::float8
  FROM phased p
 WHERE s.check_id = p.check_id;
`,
};

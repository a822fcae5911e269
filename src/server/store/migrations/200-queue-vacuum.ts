import type { Migration } from './index.js';

/**
 * Autovacuum visits `runs` once a twentieth of it is dead rather than a fifth, PGlite's share (`DEAD_SHARE` in
 * src/server/store/vacuum.ts). Every run leaves a dead entry in the queue's partial indexes, where a lease and the
 * sweeps' probes of lost leases and untaken runs start reading, until a VACUUM removes it. PostgreSQL steps over
 * them at about 7.5 ms per million (docs/control-plane.md, Capacity, "Vacuumed as autovacuum would"), and with
 * autovacuum's default a store of N runs holds up to N/10 of them before its VACUUM: a month at 30 runs/s, 7.8
 * million, about 60 ms at every lease and every second's probes; N/40 with this.
 */
export const queueVacuum: Migration = {
  name: '200-queue-vacuum',
  sql: '',
  postgres: 'ALTER TABLE runs SET (autovacuum_vacuum_scale_factor = 0.05);',
};

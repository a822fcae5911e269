import { core } from './001-core.js';
import { resourceNumbers } from './010-resource-numbers.js';
import { runs } from './020-runs.js';
import { codeBundles } from './030-code-bundles.js';
import { alerts } from './040-alerts.js';
import { checkSchedules } from './060-check-schedules.js';

export interface Migration {
  name: string;
  sql: string;
}

/** Every migration, in the order they apply; one set for PGlite and PostgreSQL. Never edit one that shipped. */
export const MIGRATIONS: readonly Migration[] = [
  core,
  resourceNumbers,
  runs,
  codeBundles,
  alerts,
  checkSchedules,
];

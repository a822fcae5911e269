import { core } from './001-core.js';

export interface Migration {
  name: string;
  sql: string;
}

/** Every migration, in the order they apply; one set for PGlite and PostgreSQL. Never edit one that shipped. */
export const MIGRATIONS: readonly Migration[] = [core];

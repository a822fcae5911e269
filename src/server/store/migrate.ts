import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** An arbitrary constant: the advisory lock that lets one server replica migrate while the others wait. */
const MIGRATION_LOCK = 7_261_001;

/**
 * Applies every migration not yet applied, in order, in one transaction: each one's SQL, then its part for this
 * kind of store. `migrations` is the shipped list unless a test stops at an older schema.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      if (migration.sql) await tx.exec(migration.sql);
      const own = migration[db.kind];
      if (own) await tx.exec(own);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      applied.push(migration.name);
    }
    return applied;
  });
}

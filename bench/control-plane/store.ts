/** The store of one row: a fresh PGlite folder, or a fresh PostgreSQL database on the test server; both removed after. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Db, openDb } from '../../src/server/store/db.js';
import { freshPostgresDatabase } from '../../test/support/server.js';
import { ROOT } from '../../test/support/vantage-command.js';
import type { StoreKind } from './options.js';

export interface BenchStore {
  readonly kind: StoreKind;
  /** A folder of its own for the artifacts (and, on PGlite, the store) of each server replica. */
  readonly dir: string;
  /** The environment a `vantage server` needs to use this store. */
  serverEnv(replica: number): Record<string, string>;
  /** Opens the store to read what the servers did; PGlite only once they stopped. */
  open(): Promise<Db>;
  /** Processes of the store that serve the servers (PostgreSQL backends), whose CPU is the control plane's too. */
  backendPids(): Promise<number[]>;
  remove(): Promise<void>;
}

/** The admin URL of a PostgreSQL server: BENCH_DATABASE_URL, TEST_DATABASE_URL, or the test server the script starts. */
function adminUrl(): string {
  const given = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (given) return given;
  const printed = execFileSync(`${ROOT}scripts/start-test-postgres.sh`, { encoding: 'utf8' });
  const url = /TEST_DATABASE_URL=(\S+)/.exec(printed)?.[1];
  if (!url) throw new Error(`scripts/start-test-postgres.sh printed no URL: ${printed}`);
  return url;
}

export async function createStore(kind: StoreKind): Promise<BenchStore> {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-bench-cp-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (kind === 'pglite') {
    const dataDir = join(dir, 'server-1');
    return {
      kind,
      dir,
      serverEnv: (replica) => {
        if (replica !== 1) throw new Error('PGlite serves one server process');
        return { VANTAGE_DATA_DIR: dataDir };
      },
      open: () => openDb({ dataDir }),
      backendPids: async () => [],
      remove: async () => removeDir(),
    };
  }
  const admin = adminUrl();
  process.env.TEST_DATABASE_URL = admin;
  const database = await freshPostgresDatabase('bench').catch((error: Error) => {
    removeDir();
    throw new Error(`creating a database on ${admin}: ${error.message}`);
  });
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect().catch(async (error: Error) => {
    await database.drop().catch(() => {});
    removeDir();
    throw error;
  });
  return {
    kind,
    dir,
    serverEnv: (replica) => ({
      DATABASE_URL: database.url,
      VANTAGE_DATA_DIR: join(dir, `server-${replica}`),
    }),
    open: () => openDb({ databaseUrl: database.url }),
    async backendPids() {
      const rows = await adminClient.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1',
        [database.name],
      );
      return rows.rows.map((r) => r.pid);
    },
    async remove() {
      await adminClient.end().catch(() => {});
      await database.drop();
      removeDir();
    },
  };
}

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ServerConfig } from '../../src/server/config.js';
import { type RunningServer, startServer } from '../../src/server/server.js';

/** The stores the server tests run on: always PGlite, and PostgreSQL when TEST_DATABASE_URL is set (CI). */
export const STORES: ('pglite' | 'postgres')[] = [
  'pglite',
  ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : []),
];

/** A fresh, empty PostgreSQL database on the test server; dropped by `drop()`. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('TEST_DATABASE_URL is not set');
  const name = `vantage_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestServer {
  server: RunningServer;
  url: string;
  accountId: string;
  apiKey: string;
  /** Headers that authenticate as the bootstrap admin. */
  headers: Record<string, string>;
  /** Restarts the server on the same store and port (as after a crash or a deploy). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a real control plane on 127.0.0.1 with a store of its own. */
export async function startTestServer(
  store: 'pglite' | 'postgres' = 'pglite',
  overrides: Partial<ServerConfig> & { rateLimit?: { max: number; windowMs: number } } = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vantage-server-'));
  const database = store === 'postgres' ? await freshPostgresDatabase() : null;
  const apiKey = `vk_test_${randomBytes(16).toString('hex')}`;
  const { rateLimit, ...configOverrides } = overrides;
  const config: ServerConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: database?.url,
    logLevel: 'ERROR',
    publicUrl: 'http://127.0.0.1',
    bootstrapKey: apiKey,
    ...configOverrides,
  };
  let server = await startServer({ config, version: '0.0.0-test', rateLimit });
  const port = Number(new URL(server.url).port);
  const handle: TestServer = {
    server,
    url: server.url,
    accountId: server.bootstrap.accountId,
    apiKey,
    headers: { authorization: `Bearer ${apiKey}`, 'x-service-account': server.bootstrap.accountId },
    async restart() {
      await server.close();
      server = await startServer({ config: { ...config, port }, version: '0.0.0-test', rateLimit });
      handle.server = server;
    },
    async close() {
      await server.close();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

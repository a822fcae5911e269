import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { AlertingConfig, ServerConfig } from '../../src/server/config.js';
import type { RunServiceOptions } from '../../src/server/scheduler/run-services.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { type Db, openDb } from '../../src/server/store/db.js';
import { PGLITE_CACHE_MB } from '../../src/server/store/pglite-cache.js';

export type Store = 'pglite' | 'postgres';

/** Test servers never send alerts outside this machine: each outside service is a closed local port. */
const CLOSED = 'http://127.0.0.1:9';
export const LOCAL_ALERTING: AlertingConfig = {
  emailFrom: 'Vantage <alerts@localhost>',
  smtpUrl: 'smtp://127.0.0.1:9',
  slackApiUrl: CLOSED,
  pagerDutyEventsUrl: CLOSED,
  opsgenieApiUrl: CLOSED,
  twilio: { apiUrl: CLOSED },
  retryBaseMs: 1000,
};

/** The stores the server tests run on: always PGlite, and PostgreSQL when TEST_DATABASE_URL is set (CI). */
export const STORES: Store[] = ['pglite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])];

/** The PUBLIC_URL of test servers: the base of the links and URLs they answer with. */
export const TEST_PUBLIC_URL = 'http://127.0.0.1';

/** A fresh, empty PostgreSQL database on the test server (named `<prefix>_<random>`); dropped by `drop()`. */
export async function freshPostgresDatabase(
  prefix = 'vantage_test',
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string }
).version;

/**
 * A PGlite cluster made once per machine and PGlite version, which every test server copies: making a cluster
 * (initdb) takes seconds, copying one a fraction of that. The server then opens it as it opens its store after
 * a restart, and migrates it.
 */
async function pgliteTemplate(): Promise<string> {
  const template = join(tmpdir(), `vantage-test-pglite-${PGLITE_VERSION}`);
  const ready = async () =>
    access(join(template, 'PG_VERSION')).then(
      () => true,
      () => false,
    );
  if (await ready()) return template;
  const building = await mkdtemp(join(tmpdir(), 'vantage-test-pglite-building-'));
  const db = new PGlite(building);
  await db.waitReady;
  await db.close();
  // Another test process may have finished first: its template is as good as this one.
  await rename(building, template).catch(() => rm(building, { recursive: true, force: true }));
  if (!(await ready())) throw new Error(`no PGlite template at ${template}`);
  return template;
}

/** A new PGlite data folder, copied from the template (never migrated); the caller removes it. */
export async function freshPgliteDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vantage-pglite-'));
  await cp(await pgliteTemplate(), dataDir, { recursive: true });
  return dataDir;
}

/**
 * An empty store of this kind, not migrated, opened as the server opens it: a fresh PostgreSQL database, or a fresh
 * PGlite data folder. `drop()` closes it and removes it.
 */
export async function openFreshStore(store: Store): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (store === 'postgres') {
    const database = await freshPostgresDatabase();
    const db = await openDb({ databaseUrl: database.url });
    return { db, drop: () => db.close().then(database.drop) };
  }
  const dataDir = await freshPgliteDir();
  const db = await openDb({ dataDir });
  return { db, drop: () => db.close().then(() => rm(dataDir, { recursive: true, force: true })) };
}

export interface TestServerOptions {
  rateLimit?: { max: number; windowMs: number };
  /** The server's API_RATE_LIMIT setting (requests per key per 60 s). */
  apiRateLimit?: number;
  failedAuthLimit?: { max: number; windowMs: number };
  /** Trust X-Forwarded-For (to pose as several sources). */
  trustProxy?: boolean;
  /** Clock and timings of the run machinery (scheduler, reaper, gateway). */
  runs?: RunServiceOptions;
  /** Where channels deliver besides users' own addresses; the default is a closed local port for each. */
  alerting?: Partial<AlertingConfig>;
  /** The server's logger (none by default). */
  logger?: FastifyBaseLogger;
  /** Share the PostgreSQL database of another server (a second replica); it is not dropped on close. */
  databaseUrl?: string;
  /** VANTAGE_RESULT_RETENTION_DAYS (30 by default). */
  resultRetentionDays?: number;
}

export interface TestServer {
  /** The running server (after `stop()`, the one that stopped). */
  server: RunningServer;
  url: string;
  port: number;
  accountId: string;
  apiKey: string;
  /** Headers that authenticate as the bootstrap admin. */
  headers: Record<string, string>;
  /** A JSON API call as the bootstrap admin. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Goes down (as in a crash or a deploy): agents lose their connections, the store is kept. */
  stop(): Promise<void>;
  /** Comes back on the same store and port. */
  start(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a real control plane on 127.0.0.1 with a store of its own (or a shared PostgreSQL database). */
export async function startTestServer(
  store: Store = 'pglite',
  options: TestServerOptions = {},
): Promise<TestServer> {
  const dataDir =
    store === 'pglite' ? await freshPgliteDir() : await mkdtemp(join(tmpdir(), 'vantage-server-'));
  const database = store === 'postgres' && !options.databaseUrl ? await freshPostgresDatabase() : null;
  const apiKey = `vk_test_${randomBytes(16).toString('hex')}`;
  const config: ServerConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    pgliteCacheMb: PGLITE_CACHE_MB,
    databaseUrl: options.databaseUrl ?? database?.url,
    logLevel: 'ERROR',
    publicUrl: TEST_PUBLIC_URL,
    bootstrapKey: apiKey,
    trustProxy: options.trustProxy ?? false,
    apiRateLimit: options.apiRateLimit,
    alerting: { ...LOCAL_ALERTING, ...options.alerting },
    resultRetentionDays: options.resultRetentionDays ?? 30,
  };
  const launch = (port: number) =>
    startServer({
      config: { ...config, port },
      version: '0.0.0-test',
      rateLimit: options.rateLimit,
      failedAuthLimit: options.failedAuthLimit,
      runs: options.runs,
      logger: options.logger,
      // Every answer of every test is held to the published OpenAPI document.
      responseCheck: 'strict',
    });
  let server = await launch(0);
  let up = true;
  const port = Number(new URL(server.url).port);
  const handle: TestServer = {
    server,
    url: server.url,
    port,
    accountId: server.bootstrap.accountId,
    apiKey,
    headers: { authorization: `Bearer ${apiKey}`, 'x-service-account': server.bootstrap.accountId },
    async api(method, path, body) {
      const response = await fetch(`${handle.url}${path}`, {
        method,
        headers: { ...handle.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      if (!up) return;
      up = false;
      await server.close();
    },
    async start() {
      if (up) return;
      server = await launch(port);
      handle.server = server;
      up = true;
    },
    async restart() {
      await handle.stop();
      await handle.start();
    },
    async close() {
      await handle.stop();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** The PostgreSQL URL of a server, for a second replica on the same database. */
export function databaseUrlOf(server: TestServer): string {
  const url = server.server.context.config.databaseUrl;
  if (!url) throw new Error('not a PostgreSQL server');
  return url;
}

/** A clock the test moves by hand. */
export class TestClock {
  private time: number;
  constructor(start = '2026-04-01T10:00:00.000Z') {
    this.time = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.time);
  advance(ms: number): void {
    this.time += ms;
  }
  set(iso: string): void {
    this.time = Date.parse(iso);
  }
}

/** A private location made through the API, with its first key (`pl_…`, shown in clear only then). */
export interface CreatedLocation {
  id: string;
  slugName: string;
  key: string;
  keyId: string;
}

export async function createLocation(server: TestServer, slugName: string): Promise<CreatedLocation> {
  const { status, body } = await server.api('POST', '/v1/private-locations', {
    name: `Location ${slugName}`,
    slugName,
  });
  if (status !== 201) throw new Error(`creating location ${slugName}: ${status} ${JSON.stringify(body)}`);
  return { id: body.id, slugName, key: body.keys[0].rawKey, keyId: body.keys[0].id };
}

/** Creates an API check through the API (`autoAssignAlerts` as given, true by default); returns its id. */
export async function createApiCheck(
  server: TestServer,
  fields: Record<string, unknown>,
  options: { autoAssignAlerts?: boolean } = {},
): Promise<string> {
  const query = options.autoAssignAlerts === false ? '?autoAssignAlerts=false' : '';
  const { status, body } = await server.api('POST', `/v1/checks${query}`, {
    checkType: 'API',
    name: 'Health',
    request: { url: 'http://127.0.0.1:9/health' },
    ...fields,
  });
  if (status !== 201) throw new Error(`creating a check: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

/** Reads until `ok` holds or the time is up; returns the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

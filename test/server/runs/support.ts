import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from '../../../src/server/config.js';
import type { RunServiceOptions } from '../../../src/server/scheduler/run-services.js';
import { type RunningServer, startServer } from '../../../src/server/server.js';
import { freshPostgresDatabase } from '../../support/server.js';

export { STORES } from '../../support/server.js';

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

export interface RunsServer {
  server: RunningServer;
  url: string;
  accountId: string;
  headers: Record<string, string>;
  /** JSON API call as the bootstrap admin. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface RunsServerOptions {
  runs?: RunServiceOptions;
  /** Share a PostgreSQL database with another server (a second replica); it is not dropped on close. */
  databaseUrl?: string;
}

/** A real control plane on 127.0.0.1 whose run machinery uses the given clock and timings. */
export async function startRunsServer(
  store: 'pglite' | 'postgres',
  options: RunsServerOptions = {},
): Promise<RunsServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vantage-runs-'));
  const database = store === 'postgres' && !options.databaseUrl ? await freshPostgresDatabase() : null;
  const apiKey = `vk_test_${randomBytes(16).toString('hex')}`;
  const config: ServerConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: options.databaseUrl ?? database?.url,
    logLevel: 'ERROR',
    publicUrl: 'http://127.0.0.1:1',
    bootstrapKey: apiKey,
  };
  const start = (port: number) =>
    startServer({ config: { ...config, port }, version: '0.0.0-test', runs: options.runs });
  let server = await start(0);
  const port = Number(new URL(server.url).port);
  const handle: RunsServer = {
    server,
    url: server.url,
    accountId: server.bootstrap.accountId,
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
    async restart() {
      await server.close();
      server = await start(port);
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

/** The PostgreSQL URL of a server, for a second replica on the same database. */
export function databaseUrlOf(server: RunsServer): string {
  const url = server.server.context.config.databaseUrl;
  if (!url) throw new Error('not a PostgreSQL server');
  return url;
}

/** Creates a private location (with its first key) through the API. */
export async function createLocation(
  server: RunsServer,
  slugName: string,
): Promise<{ id: string; slugName: string; key: string; keyId: string }> {
  const { status, body } = await server.api('POST', '/v1/private-locations', {
    name: `Location ${slugName}`,
    slugName,
  });
  if (status !== 201) throw new Error(`creating location ${slugName}: ${status} ${JSON.stringify(body)}`);
  return { id: body.id, slugName, key: body.keys[0].rawKey, keyId: body.keys[0].id };
}

/** Creates an API check through the API; returns its id. */
export async function createApiCheck(server: RunsServer, fields: Record<string, unknown>): Promise<string> {
  const { status, body } = await server.api('POST', '/v1/checks', {
    checkType: 'API',
    name: 'Health',
    request: { url: 'http://127.0.0.1:9/health' },
    ...fields,
  });
  if (status !== 201) throw new Error(`creating a check: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

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

import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'undici';
import { hashKey, newLocationKey } from '../../../src/server/auth/keys.js';
import { KIND_PATHS } from '../../../src/server/checks/kinds.js';
import type { TestServer } from '../../support/server.js';

export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** A small JSON client for one server and one set of credentials. */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string>,
  ) {}

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...this.headers, ...extraHeaders };
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = await request(`${this.baseUrl}${path}`, {
      method: method as 'GET',
      headers,
      body: payload,
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    if (text !== '' && String(response.headers['content-type'] ?? '').includes('json'))
      parsed = JSON.parse(text);
    return { status: response.statusCode, headers: response.headers, body: parsed as T };
  }

  get = <T = any>(path: string) => this.call<T>('GET', path);
  post = <T = any>(path: string, body: unknown = {}) => this.call<T>('POST', path, body);
  put = <T = any>(path: string, body: unknown = {}) => this.call<T>('PUT', path, body);
  delete = <T = any>(path: string) => this.call<T>('DELETE', path);

  /** A client with other credentials on the same server. */
  as(headers: Record<string, string>): Api {
    return new Api(this.baseUrl, headers);
  }
}

export function apiOf(server: TestServer): Api {
  return new Api(server.url, server.headers);
}

/** A second account with its own user key, made directly in the store (the API has no route for it). */
export async function createAccount(
  server: TestServer,
): Promise<{ accountId: string; headers: Record<string, string> }> {
  const db = server.server.context.db;
  const accountId = randomUUID();
  const key = `vk_other_${randomBytes(16).toString('hex')}`;
  await db.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, 'Other account']);
  await db.query(
    `INSERT INTO api_keys (id, account_id, kind, name, key_hash, key_hint) VALUES ($1, $2, 'user', 'other', $3, 'x')`,
    [randomUUID(), accountId, hashKey(key)],
  );
  return { accountId, headers: { authorization: `Bearer ${key}`, 'x-service-account': accountId } };
}

/** A private location of the server's account and an agent key for it, made directly in the store. */
export async function createPrivateLocation(
  server: TestServer,
  slug: string,
  accountId = server.accountId,
): Promise<{ id: string; headers: Record<string, string> }> {
  const db = server.server.context.db;
  const id = randomUUID();
  const key = newLocationKey(accountId, slug);
  await db.query('INSERT INTO private_locations (id, account_id, name, slug_name) VALUES ($1, $2, $3, $4)', [
    id,
    accountId,
    slug,
    slug,
  ]);
  await db.query(
    `INSERT INTO api_keys (id, account_id, kind, private_location_id, name, key_hash, key_hint)
     VALUES ($1, $2, 'location', $3, 'agent', $4, 'x')`,
    [randomUUID(), accountId, id, hashKey(key)],
  );
  return { id, headers: { authorization: `Bearer ${key}`, 'x-service-account': accountId } };
}

/** A valid create body of every kind, by its path segment (loopback targets only). */
export const VALID_CHECKS = {
  api: {
    name: 'API check',
    request: { url: 'http://127.0.0.1:9/api', method: 'POST', body: '{}', bodyType: 'JSON' },
  },
  url: { name: 'URL check', request: { url: 'http://127.0.0.1:9/' } },
  tcp: { name: 'TCP check', request: { hostname: '127.0.0.1', port: 9 } },
  dns: { name: 'DNS check', request: { query: 'localhost', nameServer: '127.0.0.1', port: 5353 } },
  icmp: { name: 'ICMP check', request: { hostname: '127.0.0.1' }, heartbeat: {}, script: '' },
  browser: {
    name: 'Browser check',
    script: "import { test } from '@playwright/test'; test('x', async () => {});",
  },
  multistep: {
    name: 'Multistep check',
    script: "import { test } from '@playwright/test'; test('x', async () => {});",
  },
  playwright: { name: 'Playwright suite', codeBundlePath: 'bundle.tar.gz' },
  heartbeat: {
    name: 'Nightly backup',
    heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
  },
} as const;

/** The kind each create path makes: the routes' own map. */
export const CHECK_TYPE_OF_PATH = KIND_PATHS;

/** The fields a 400 names in attributes.errors, each once. */
export function invalidFields(reply: Reply): string[] {
  return [...new Set(((reply.body?.attributes?.errors ?? []) as { field: string }[]).map((e) => e.field))];
}

import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AGENT_PATHS } from '../../../src/protocol/index.js';
import { createApp } from '../../../src/server/http/app.js';
import { registerRoutes } from '../../../src/server/routes/index.js';
import { APP_PAGES } from '../../../src/server/web-app/pages.js';
import { STORES, startTestServer, TEST_PUBLIC_URL, type TestServer } from '../../support/server.js';
import { type Api, apiOf, createAccount, createPrivateLocation, VALID_CHECKS } from './support.js';

describe.each(STORES)('authentication, isolation, errors and OpenAPI (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  /** Every method and path a fresh app of the server's route modules serves (HEAD aside), as OpenAPI writes paths. */
  async function servedRoutes(server: TestServer): Promise<string[]> {
    const context = { ...server.server.context };
    const app = await createApp({ db: context.db, version: '0.0.0-test', publicUrl: TEST_PUBLIC_URL });
    const served: string[] = [];
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') served.push(`${method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
      }
    });
    registerRoutes(app, context);
    await app.ready();
    await app.close();
    return served.sort();
  }

  describe('authentication', () => {
    it('answers 401 without a key, with an unknown key, and without the account header', async () => {
      const noKey = await api.as({ 'x-service-account': server.accountId }).get('/v1/checks');
      expect(noKey.status).toBe(401);
      expect(noKey.body).toMatchObject({
        statusCode: 401,
        error: 'Unauthorized',
        message: expect.any(String),
      });
      const badKey = await api
        .as({ authorization: 'Bearer vk_not_a_real_key_at_all', 'x-service-account': server.accountId })
        .get('/v1/checks');
      expect(badKey.status).toBe(401);
      const noAccount = await api.as({ authorization: `Bearer ${server.apiKey}` }).get('/v1/checks');
      expect(noAccount.status).toBe(401);
      expect(noAccount.body.message).toContain('x-service-account');
    });

    it('answers 403 when the account header names another account', async () => {
      const other = await createAccount(server);
      const reply = await api
        .as({ authorization: `Bearer ${server.apiKey}`, 'x-service-account': other.accountId })
        .get('/v1/checks');
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    });

    it('answers 403 to a private-location (pl_) key on the API routes', async () => {
      const location = await createPrivateLocation(server, 'agent-only');
      expect(location.headers.authorization).toMatch(/^Bearer pl_/);
      for (const path of ['/v1/checks', '/v1/variables', '/v1/accounts', '/v1/alert-channels']) {
        const reply = await api.as(location.headers).get(path);
        expect(reply.status, path).toBe(403);
      }
      expect((await api.as(location.headers).post('/v1/checks/url', VALID_CHECKS.url)).status).toBe(403);
    });

    it('serves /openapi.json and the heartbeat ping receiver without a key', async () => {
      expect((await api.as({}).get('/openapi.json')).status).toBe(200);
      expect((await api.as({}).get('/heartbeats/unknown-token')).status).toBe(404);
    });
  });

  describe('account isolation', () => {
    let other: Api;
    const own: Record<string, string | number> = {};

    beforeAll(async () => {
      other = api.as((await createAccount(server)).headers);
      own.check = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body.id;
      own.heartbeat = (await api.post('/v1/checks/heartbeat', VALID_CHECKS.heartbeat)).body.id;
      own.group = (await api.post('/v2/check-groups', { name: 'Mine' })).body.id;
      own.channel = (
        await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@localhost.test' } })
      ).body.id;
      await api.post('/v1/variables', { key: 'MINE', value: 'v' });
      own.window = (
        await api.post('/v1/maintenance-windows', {
          name: 'Mine',
          startsAt: '2030-01-01T00:00:00Z',
          endsAt: '2030-01-01T01:00:00Z',
        })
      ).body.id;
      own.service = (await api.post('/v1/status-pages/services', { name: 'Mine' })).body.id;
      own.page = (await api.post('/v1/status-pages', { name: 'Mine', url: 'mine' })).body.id;
      await api.post(`/v1/triggers/checks/${own.check}`);
      await api.post(`/v1/triggers/check-groups/${own.group}`);
      const token = (await api.get(`/v1/checks/${own.heartbeat}`)).body.heartbeat.pingToken;
      await api.get(`/heartbeats/${token}`);
      own.event = (await api.get(`/v1/checks/heartbeats/${own.heartbeat}/events`)).body[0].id;
      own.errorGroup = '6f1b8f2e-0000-4000-8000-00000000e001';
      await server.server.context.db.query(
        `INSERT INTO error_groups (id, account_id, check_id, error_hash, cleaned_error_message) VALUES ($1, $2, $3, 'h', 'm')`,
        [own.errorGroup, server.accountId, own.check],
      );
    });

    it('answers 404 to every route that names another account’s resource', async () => {
      const calls: [string, string, unknown?][] = [
        ['GET', `/v1/checks/${own.check}`],
        ['PUT', `/v1/checks/url/${own.check}`, { name: 'x' }],
        ['PUT', `/v1/checks/${own.check}`, { name: 'x' }],
        ['DELETE', `/v1/checks/${own.check}`],
        ['GET', `/v1/check-groups/${own.group}`],
        ['PUT', `/v1/check-groups/${own.group}`, { name: 'x' }],
        ['DELETE', `/v1/check-groups/${own.group}`],
        ['GET', `/v1/check-groups/${own.group}/checks`],
        ['GET', `/v1/alert-channels/${own.channel}`],
        ['PUT', `/v1/alert-channels/${own.channel}`, { sendDegraded: true }],
        ['PUT', `/v1/alert-channels/${own.channel}/subscriptions`, { checkId: own.check, activated: true }],
        ['DELETE', `/v1/alert-channels/${own.channel}`],
        ['GET', '/v1/variables/MINE'],
        ['PUT', '/v1/variables/MINE', { value: 'x' }],
        ['DELETE', '/v1/variables/MINE'],
        ['GET', `/v1/maintenance-windows/${own.window}`],
        ['PUT', `/v1/maintenance-windows/${own.window}`, { name: 'x' }],
        ['DELETE', `/v1/maintenance-windows/${own.window}`],
        ['GET', `/v1/maintenance-windows/${own.window}/maintenances/0`],
        ['GET', `/v1/status-pages/services/${own.service}`],
        ['PUT', `/v1/status-pages/services/${own.service}`, { name: 'x' }],
        ['DELETE', `/v1/status-pages/services/${own.service}`],
        ['GET', `/v1/status-pages/${own.page}`],
        ['GET', `/v1/status-pages/${own.page}/subscriptions`],
        ['POST', `/v1/status-pages/${own.page}/subscriptions`, { address: 'x@localhost.test' }],
        ['DELETE', `/v1/status-pages/${own.page}`],
        ['POST', `/v1/triggers/checks/${own.check}`],
        ['GET', `/v1/triggers/checks/${own.check}`],
        ['DELETE', `/v1/triggers/checks/${own.check}`],
        ['POST', `/v1/triggers/check-groups/${own.group}`],
        ['GET', `/v1/triggers/check-groups/${own.group}`],
        ['DELETE', `/v1/triggers/check-groups/${own.group}`],
        ['GET', `/v1/checks/heartbeats/${own.heartbeat}/events`],
        ['GET', `/v1/checks/heartbeats/${own.heartbeat}/events/${own.event}`],
        ['GET', `/v1/error-groups/${own.errorGroup}`],
        ['GET', `/v1/accounts/${server.accountId}`],
      ];
      for (const [method, path, body] of calls) {
        const reply = await other.call(method, path, body);
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body.statusCode, `${method} ${path}`).toBe(404);
      }
      // Nothing changed for the owner.
      expect((await api.get(`/v1/checks/${own.check}`)).body.name).toBe(VALID_CHECKS.url.name);
      expect((await api.get('/v1/variables/MINE')).body.value).toBe('v');
      expect((await api.get(`/v1/triggers/checks/${own.check}`)).status).toBe(200);
    });

    it('shows another account none of these in its lists', async () => {
      for (const path of [
        '/v1/checks',
        '/v1/check-groups',
        '/v1/alert-channels',
        '/v1/variables',
        '/v1/client-certificates',
        '/v1/maintenance-windows',
        '/v1/status-pages',
        '/v1/status-pages/services',
        '/v1/error-groups',
        `/v1/error-groups?checkId=${own.check}`,
      ]) {
        const reply = await other.get(path);
        expect(reply.status, path).toBe(200);
        expect(reply.body, path).toEqual([]);
      }
      const accounts = (await other.get('/v1/accounts')).body;
      expect(accounts).toHaveLength(1);
      expect(accounts[0].id).not.toBe(server.accountId);
    });

    it('keeps the other account’s names apart: same variable key, own checks', async () => {
      expect((await other.post('/v1/variables', { key: 'MINE', value: 'theirs' })).status).toBe(201);
      expect((await api.get('/v1/variables/MINE')).body.value).toBe('v');
      const theirs = (await other.post('/v1/checks/url', VALID_CHECKS.url)).body.id;
      expect((await api.get(`/v1/checks/${theirs}`)).status).toBe(404);
      expect((await other.get('/v1/checks')).body.map((c: { id: string }) => c.id)).toEqual([theirs]);
    });
  });

  describe('errors', () => {
    it('answers 404 with the error body to an unknown route', async () => {
      const reply = await api.get('/v1/no-such-thing');
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: expect.stringContaining('/v1/no-such-thing'),
        attributes: {},
      });
    });

    it('answers 400 with the error body to malformed JSON', async () => {
      const reply = await api.call('POST', '/v1/variables', '{"key": ');
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        message: expect.any(String),
      });
      expect(reply.body.attributes).toEqual(expect.any(Object));
    });
    it('answers 400, not 500, to text the store cannot hold (U+0000)', async () => {
      const body = await api.post('/v1/checks/url', { ...VALID_CHECKS.url, name: 'a\u0000b' });
      expect(body.status).toBe(400);
      expect(body.body.attributes.errors).toEqual([
        { field: 'name', message: 'must not contain the NUL character (\\u0000)' },
      ]);
      expect((await api.post('/v1/variables', { key: 'K', value: 'a\u0000b' })).status).toBe(400);
      expect((await api.get('/v1/checks/a%00b')).status).toBe(400);
      expect((await api.get('/v1/checks?name=a%00b')).status).toBe(400);
    });
    it('tells the escapes of unstorable text in a JSON text from those of text it can keep', async () => {
      const variable = (key: string, valueJson: string) =>
        api.call('POST', '/v1/variables', `{"key": "${key}", "value": ${valueJson}}`);
      expect((await variable('UPPER', '"\\uD800"')).status).toBe(400);
      expect((await variable('LOW', '"x\\udfff"')).status).toBe(400);
      expect((await variable('NUL', '"\\u0000"')).status).toBe(400);
      // A backslash escaped before "u0000" is text, and an escaped pair of surrogates is one character.
      expect((await variable('SLASH', '"a\\\\u0000b"')).status).toBe(201);
      expect((await variable('PAIR', '"\\ud83d\\ude00"')).status).toBe(201);
      expect((await variable('PLAIN', '"\\u00e9\\n"')).status).toBe(201);
      const values = (await api.get('/v1/variables')).body.map((v: { key: string; value: string }) => [
        v.key,
        v.value,
      ]);
      expect(values).toEqual(
        expect.arrayContaining([
          ['SLASH', 'a\\u0000b'],
          ['PAIR', '😀'],
          ['PLAIN', 'é\n'],
        ]),
      );
    });
  });

  describe('GET /openapi.json', () => {
    it('is a valid OpenAPI 3.1 document that lists every registered route', async () => {
      const reply = await api.get('/openapi.json');
      expect(reply.status).toBe(200);
      const document = reply.body;
      expect(document.openapi).toBe('3.1.0');
      const result = await new Validator().validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);

      // What fastify really serves, collected as a fresh app registers the same route modules.
      // Prometheus's /metrics, the orchestrator's probes, the web app's sign-in, pages and assets are not the API's:
      // left out of the document on purpose.
      const unpublished = [
        'GET /metrics',
        'GET /-/liveness',
        'GET /-/readiness',
        'POST /app/session',
        'GET /app/session',
        'DELETE /app/session',
        'GET /assets/*',
        'GET /trace/*',
        ...APP_PAGES.map((page) => `GET ${page.replace(/:(\w+)/g, '{$1}')}`),
      ];
      const served = (await servedRoutes(server)).filter((route) => !unpublished.includes(route));
      const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`))
        .sort();
      expect(documented).toEqual(served);
      for (const route of [
        'PUT /v1/checks/url/{id}',
        'POST /v1/checks/icmp',
        'POST /v2/check-groups',
        'GET /v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
        'GET /v1/checks/heartbeats/{checkId}/events/{id}',
        'GET /v1/alert-channels/{id}',
        'GET /v1/accounts',
        'PUT /v1/status-pages/services/{serviceId}',
        'GET /v1/client-certificates/{id}',
        'GET /v1/status-pages/{statusPageId}/subscriptions',
        'DELETE /v1/triggers/check-groups/{groupId}',
        'DELETE /v1/triggers/checks/{checkId}',
        'DELETE /v1/variables/{key}',
        'GET /v1/locations',
        'GET /v1/error-groups/{id}',
      ]) {
        expect(documented, route).toContain(route);
      }
    });

    it('documents the ICMP create body with its required fields', async () => {
      const document = (await api.get('/openapi.json')).body;
      const operation = document.paths['/v1/checks/icmp'].post;
      const schema = operation.requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(expect.arrayContaining(['name', 'request', 'heartbeat', 'script']));
      expect(operation.parameters).toContainEqual(
        expect.objectContaining({ name: 'autoAssignAlerts', in: 'query' }),
      );
      expect(Object.keys(operation.responses)).toContain('201');
    });
  });
});

describe('rate limit', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('pglite', { apiRateLimit: 5 });
  });
  afterAll(async () => server?.close());

  it('answers the 6th request in the window (API_RATE_LIMIT=5) with 429, Retry-After and the error body', async () => {
    const api = apiOf(server);
    for (let i = 0; i < 5; i++) expect((await api.get('/v1/checks')).status).toBe(200);
    const limited = await api.get('/v1/checks');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.any(String),
      attributes: expect.any(Object),
    });
  });
});

describe('limits of keyless routes and of failed authentication', () => {
  let server: TestServer;
  let api: Api;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      rateLimit: { max: 5, windowMs: 60_000 },
      failedAuthLimit: { max: 3, windowMs: 60_000 },
      trustProxy: true,
    });
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  /** A client posing as the source `ip` (the test server trusts X-Forwarded-For). */
  const from = (ip: string, headers: Record<string, string> = {}) =>
    api.as({ ...headers, 'x-forwarded-for': ip });
  const heartbeatToken = async () =>
    (await api.post('/v1/checks/heartbeat', VALID_CHECKS.heartbeat)).body.heartbeat.pingToken as string;

  it('limits heartbeat pings per token: one busy token from an address starves no other token from it', async () => {
    const [busy, quiet] = [await heartbeatToken(), await heartbeatToken()];
    const pinger = from('10.0.0.1');
    for (let i = 0; i < 5; i++) expect((await pinger.get(`/heartbeats/${busy}`)).status).toBe(200);
    const limited = await pinger.get(`/heartbeats/${busy}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await pinger.get(`/heartbeats/${quiet}`)).status).toBe(200);
  });

  it('answers 429 to a source after too many invalid keys, without affecting valid keys or other sources', async () => {
    const admin = {
      authorization: server.headers.authorization as string,
      'x-service-account': server.accountId,
    };
    const guesser = '10.0.0.2';
    // The admin works from the guesser's address before the guessing starts (an office behind one NAT).
    expect((await from(guesser, admin).get('/v1/checks')).status).toBe(200);
    const guess = () =>
      from(guesser, {
        authorization: `Bearer vk_${Math.random().toString(36).slice(2)}`,
        'x-service-account': 'x',
      }).get('/v1/checks');
    for (let i = 0; i < 3; i++) expect((await guess()).status).toBe(401);
    const blocked = await guess();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.message).toContain('Too many failed authentications');
    // Keys proven valid still work from there; another source is not affected at all.
    expect((await from(guesser, admin).get('/v1/checks')).status).toBe(200);
    expect(
      (
        await from('10.0.0.3', { authorization: 'Bearer vk_wrong', 'x-service-account': 'x' }).get(
          '/v1/checks',
        )
      ).status,
    ).toBe(401);
  });

  it('counts unknown heartbeat and trigger tokens as failed authentication', async () => {
    const prober = from('10.0.0.4');
    for (let i = 0; i < 3; i++) expect((await prober.get(`/heartbeats/guess-${i}`)).status).toBe(404);
    expect((await prober.get('/heartbeats/guess-3')).status).toBe(429);
    expect((await prober.get('/checks/x/trigger/guess-4')).status).toBe(429);
    expect((await from('10.0.0.5').get('/heartbeats/guess-5')).status).toBe(404);
  });

  it('counts keys guessed on the agent WebSocket like keys guessed on the API', async () => {
    const upgrade = (ip: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${AGENT_PATHS.connect}`, {
          headers: {
            authorization: `Bearer pl_${Math.random().toString(36).slice(2)}`,
            'x-service-account': server.accountId,
            'x-forwarded-for': ip,
          },
        });
        ws.once('open', () => reject(new Error('upgraded with a guessed key')));
        ws.once('error', reject);
        ws.once('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
      });
    for (let i = 0; i < 3; i++) expect((await upgrade('10.0.0.6')).status).toBe(401);
    const blocked = await upgrade('10.0.0.6');
    expect(blocked.status).toBe(429);
    expect(JSON.parse(blocked.body).message).toContain('Too many failed authentications');
    // The same source is blocked on the API as well.
    expect(
      (await from('10.0.0.6', { authorization: 'Bearer vk_x', 'x-service-account': 'x' }).get('/v1/checks'))
        .status,
    ).toBe(429);
  });
});

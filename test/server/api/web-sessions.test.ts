import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_PATHS } from '../../../src/protocol/index.js';
import { createUserKey } from '../../../src/server/auth/bootstrap.js';
import { hashKey } from '../../../src/server/auth/keys.js';
import { STORES, startTestServer, TestClock, type TestServer } from '../../support/server.js';
import { createPrivateLocation } from './support.js';

const HOUR = 60 * 60_000;

interface Answer {
  status: number;
  body: any;
  text: string;
  setCookie: string[];
}

/** A logger that writes every line, unredacted, to `lines`: what the server logs, not what redaction hides. */
function rawLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, destination), lines };
}

/** A client of one server, as a browser page would call it: the cookie and the CSRF header only, no API key. */
function browserOf(server: TestServer, extraHeaders: Record<string, string> = {}) {
  const call = async (
    method: string,
    path: string,
    options: { cookie?: string; csrf?: string; body?: unknown } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...extraHeaders };
    if (options.cookie) headers.cookie = options.cookie;
    if (options.csrf) headers['x-csrf-token'] = options.csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    const json = text && response.headers.get('content-type')?.includes('json');
    return {
      status: response.status,
      body: json ? JSON.parse(text) : text,
      text,
      setCookie: response.headers.getSetCookie(),
    };
  };
  const signIn = async (apiKey: unknown) => {
    const answer = await call('POST', '/app/session', { body: { apiKey } });
    // What a browser sends back: the cookie's name=value, without its attributes.
    const cookie = answer.setCookie[0]?.split(';')[0] ?? '';
    return { ...answer, cookie };
  };
  return { call, signIn };
}

describe.each(STORES)('web-app sessions (%s)', (store) => {
  const clock = new TestClock(new Date().toISOString());
  const { logger, lines } = rawLogger();
  let server: TestServer;
  let browser: ReturnType<typeof browserOf>;

  beforeAll(async () => {
    server = await startTestServer(store, {
      runs: { background: false, clock: clock.now },
      logger: logger as never,
    });
    browser = browserOf(server);
  });
  afterAll(async () => server?.close());

  it('signs in with a user key: the session, and an HttpOnly SameSite=Strict cookie without the key', async () => {
    const signedIn = await browser.signIn(server.apiKey);
    expect(signedIn.status).toBe(201);
    expect(signedIn.body).toEqual({
      accountId: server.accountId,
      csrfToken: expect.any(String),
      expiresAt: new Date(clock.now().getTime() + 12 * HOUR).toISOString(),
    });
    expect(signedIn.setCookie).toHaveLength(1);
    const attributes = signedIn.setCookie[0]?.split('; ').slice(1) ?? [];
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${12 * 60 * 60}`]),
    );
    // Served over plain http with an http PUBLIC_URL.
    expect(attributes).not.toContain('Secure');
    expect(signedIn.cookie).toMatch(/^vantage_session=[\w-]{40,}$/);
    expect(signedIn.setCookie[0]).not.toContain(server.apiKey);

    // The store holds the token's hash only.
    const token = signedIn.cookie.split('=')[1] as string;
    const rows = await server.server.context.db.query<{ id_hash: string }>(
      'SELECT id_hash FROM web_sessions',
    );
    expect(rows.map((r) => r.id_hash)).toContain(hashKey(token));
    expect(rows.map((r) => r.id_hash)).not.toContain(token);

    const session = await browser.call('GET', '/app/session', { cookie: signedIn.cookie });
    expect(session.status).toBe(200);
    expect(session.body).toEqual(signedIn.body);
    expect((await browser.call('GET', '/app/session')).status).toBe(401);
  });

  it('opens the user routes with the cookie alone; unsafe methods need x-csrf-token', async () => {
    const { cookie, body } = await browser.signIn(server.apiKey);
    expect((await browser.call('GET', '/v1/checks', { cookie })).status).toBe(200);

    const variable = { key: 'FROM_THE_WEB_APP', value: 'v' };
    const withoutToken = await browser.call('POST', '/v1/variables', { cookie, body: variable });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.message).toBe('Missing or wrong x-csrf-token');
    const wrongToken = await browser.call('POST', '/v1/variables', { cookie, csrf: 'x', body: variable });
    expect(wrongToken.status).toBe(403);
    const created = await browser.call('POST', '/v1/variables', {
      cookie,
      csrf: body.csrfToken,
      body: variable,
    });
    expect(created.status).toBe(201);
    expect((await server.api('GET', '/v1/variables/FROM_THE_WEB_APP')).status).toBe(200);

    // Bearer keys need no CSRF token, as before.
    expect((await server.api('DELETE', '/v1/variables/FROM_THE_WEB_APP')).status).toBe(204);
  });

  it('never opens the agent routes with a cookie', async () => {
    const { cookie } = await browser.signIn(server.apiKey);
    const agent = await browser.call('GET', AGENT_PATHS.bundle('some-run'), { cookie });
    expect(agent.status).toBe(401);
  });

  it('signs out: 204, the cookie cleared, and the old cookie opens nothing', async () => {
    const { cookie, body } = await browser.signIn(server.apiKey);
    expect((await browser.call('DELETE', '/app/session', { cookie })).status).toBe(403);

    const signedOut = await browser.call('DELETE', '/app/session', { cookie, csrf: body.csrfToken });
    expect(signedOut.status).toBe(204);
    expect(signedOut.setCookie).toHaveLength(1);
    expect(signedOut.setCookie[0]).toMatch(/^vantage_session=;/);
    expect(signedOut.setCookie[0]).toContain('Max-Age=0');

    const after = await browser.call('GET', '/v1/checks', { cookie });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Missing credentials: send Authorization: Bearer <API_KEY>');
    expect(after.setCookie[0]).toMatch(/^vantage_session=;/);
    expect((await browser.call('GET', '/app/session', { cookie })).status).toBe(401);
  });

  it('ends the sessions of a revoked key', async () => {
    const apiKey = await createUserKey(server.server.context.db, server.accountId, 'revoked soon');
    const { cookie } = await browser.signIn(apiKey);
    expect((await browser.call('GET', '/v1/checks', { cookie })).status).toBe(200);
    await server.server.context.db.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [
      hashKey(apiKey),
    ]);
    expect((await browser.call('GET', '/v1/checks', { cookie })).status).toBe(401);
    expect((await browser.call('GET', '/app/session', { cookie })).status).toBe(401);
    expect((await browser.signIn(apiKey)).status).toBe(401);
  });

  it('ends a session unused for 2 hours, and any session 12 hours after sign-in', async () => {
    const idle = await browser.signIn(server.apiKey);
    const busy = await browser.signIn(server.apiKey);
    for (let hour = 1; hour < 12; hour++) {
      clock.advance(HOUR);
      expect((await browser.call('GET', '/v1/checks', { cookie: busy.cookie })).status, `hour ${hour}`).toBe(
        200,
      );
    }
    expect((await browser.call('GET', '/v1/checks', { cookie: idle.cookie })).status).toBe(401);
    clock.advance(HOUR);
    expect((await browser.call('GET', '/v1/checks', { cookie: busy.cookie })).status).toBe(401);

    // A sign-in prunes sessions past their lifetime.
    await browser.signIn(server.apiKey);
    const expired = await server.server.context.db.query(
      'SELECT 1 FROM web_sessions WHERE expires_at <= $1',
      [clock.now()],
    );
    expect(expired).toEqual([]);
  });

  it('refuses a wrong key (401), an agent key (403) and a body without apiKey (400), never echoing a key', async () => {
    const wrongKey = `vk_wrong_${Math.random().toString(36).slice(2)}`;
    const wrong = await browser.signIn(wrongKey);
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Invalid or revoked API key');
    expect(wrong.setCookie).toEqual([]);
    expect(wrong.text).not.toContain(wrongKey);

    const location = await createPrivateLocation(server, 'web-sign-in');
    const locationKey = (location.headers.authorization as string).replace('Bearer ', '');
    const agent = await browser.signIn(locationKey);
    expect(agent.status).toBe(403);
    expect(agent.setCookie).toEqual([]);
    expect(agent.text).not.toContain(locationKey);

    for (const body of [{}, { apiKey: '' }, { apiKey: 42 }]) {
      const invalid = await browser.call('POST', '/app/session', { body });
      expect(invalid.status, JSON.stringify(body)).toBe(400);
      expect(invalid.body.attributes.errors).toEqual([{ field: 'apiKey', message: expect.any(String) }]);
    }

    // Every key sent in this file, right or wrong, stays out of the server's log.
    const log = lines.join('');
    expect(log).not.toBe('');
    for (const key of [wrongKey, locationKey, server.apiKey]) expect(log).not.toContain(key);
  });
});

describe('web-app sessions behind a TLS proxy, and failed sign-ins', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      trustProxy: true,
      failedAuthLimit: { max: 3, windowMs: 60_000 },
    });
  });
  afterAll(async () => server?.close());

  it('marks the cookie Secure when the request came over TLS', async () => {
    const signedIn = await browserOf(server, { 'x-forwarded-proto': 'https' }).signIn(server.apiKey);
    expect(signedIn.status).toBe(201);
    expect(signedIn.setCookie[0]?.split('; ')).toContain('Secure');
  });

  it('counts wrong sign-in keys as failed authentication of their source', async () => {
    const guesser = browserOf(server, { 'x-forwarded-for': '10.0.1.1' });
    expect((await guesser.signIn(server.apiKey)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await guesser.signIn(`vk_guess_${i}`)).status).toBe(401);
    const blocked = await guesser.signIn('vk_guess_3');
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toContain('Too many failed authentications');
    // A key proven valid from there still signs in; another source is not affected.
    expect((await guesser.signIn(server.apiKey)).status).toBe(201);
    expect((await browserOf(server, { 'x-forwarded-for': '10.0.1.2' }).signIn('vk_guess_4')).status).toBe(
      401,
    );
  });
});

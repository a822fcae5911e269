import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_APP_DIR } from '../../../src/server/web-app/routes.js';
import { startTestServer, type TestServer } from '../../support/server.js';

// test/global-setup.ts builds the app into dist/web before the suite.
describe('the web app as the server delivers it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite');
  });
  afterAll(async () => server?.close());

  it('answers every page with the app under a strict Content-Security-Policy', async () => {
    for (const path of ['/', '/checks', '/checks/abc', '/sessions/abc?x=1', '/sign-in']) {
      const answer = await request(`${server.url}${path}`);
      expect(answer.statusCode, path).toBe(200);
      expect(answer.headers['content-type']).toContain('text/html');
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe');
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await answer.body.text();
      expect(html).toMatch(/<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
      expect(html).not.toMatch(/https?:\/\//);
    }
  });

  it('sends assets precompressed and cached for good, and nothing outside them', async () => {
    const html = readFileSync(`${WEB_APP_DIR}index.html`, 'utf8');
    const script = /src="(\/assets\/[^"]+)"/.exec(html)?.[1] ?? '';
    const answer = await request(`${server.url}${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['cache-control']).toContain('immutable');
    await answer.body.dump();
    const outside = await request(`${server.url}/assets/../index.html`);
    expect(outside.statusCode).not.toBe(200);
    await outside.body.dump();
  });

  it('leaves the API’s own answers alone: an unknown route is still a JSON 404', async () => {
    const answer = await request(`${server.url}/v1/no-such-thing`);
    expect(answer.statusCode).toBe(404);
    expect(answer.headers['content-type']).toContain('application/json');
    await answer.body.dump();
  });
});

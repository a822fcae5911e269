/** A browser check run by a real agent for a real control plane: its screenshot reaches the control plane. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent, waitFor } from '../../support/agent.js';
import { type TestServer as Site, startHttpServer } from '../../support/http-servers.js';
import { agentsOf, completed, FAST_RUNS, trigger } from '../../support/runs.js';
import { createLocation, startTestServer, type TestServer } from '../../support/server.js';
import { noChromium, processesWith } from './support.js';

let site: Site;
let server: TestServer;
let agent: TestAgent;

beforeAll(async () => {
  site = await startHttpServer((_req, res) => res.setHeader('content-type', 'text/html').end('<h1>Hi</h1>'));
  server = await startTestServer('pglite', { runs: FAST_RUNS });
  const location = await createLocation(server, 'office');
  agent = await startTestAgent({ url: server.url, key: location.key });
  await waitFor('the agent', async () => (await agentsOf(server, location.id)).count === 1);
});

afterAll(async () => {
  await agent?.agent.stop();
  await server?.close();
  await site?.close();
});

describe.skipIf(noChromium)('a browser check run by an agent', () => {
  it('fails as its script does, and its screenshot is uploaded to the control plane', async () => {
    const created = await server.api('POST', '/v1/checks/browser', {
      name: 'Greeting',
      activated: false,
      doubleCheck: false,
      privateLocations: ['office'],
      script: `import { test, expect } from '@playwright/test';
test('greets', async ({ page }) => {
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Bye', { timeout: 300 });
});`,
      environmentVariables: [
        { key: 'SITE', value: site.origin },
        { key: 'RUN_TAG', value: 'agent-browser-run' },
      ],
    });
    expect(created.status).toBe(201);
    const [sessionId] = await trigger(server, [created.body.id]);
    const session = await completed(server, sessionId as string, 60_000);
    expect(session.status).toBe('FAILED');
    const result = session.results[0].browserCheckResult;
    expect(result.errors[0]).toMatch(/^greets: Error: expect\(locator\)\.toHaveText/);
    const screenshot = result.assets.find((a: { name: string }) => a.name === 'greets-screenshot.png');
    expect(screenshot).toMatchObject({
      contentType: 'image/png',
      url: expect.stringMatching(/\/v1\/runs\/[\w-]+\/artifacts\/greets-screenshot\.png$/),
    });
    // The URL names the control plane's public address; this test's server listens on a port of its own.
    const download = await fetch(new URL(new URL(screenshot.url).pathname, server.url), {
      headers: server.headers,
    });
    expect(download.status).toBe(200);
    const png = Buffer.from(await download.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBe(screenshot.size);
    expect(await processesWith('RUN_TAG=agent-browser-run')).toEqual([]);
  });
});

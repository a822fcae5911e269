import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noChromium } from '../executors/browser/support.js';
import {
  bundledSuiteCheck,
  noEngine,
  packSuite,
  runtimesDir,
  startShop,
} from '../executors/playwright/suite-fixture.js';
import { uploadBundle } from '../server/bundles/support.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import type { TestServer as HttpServer } from '../support/http-servers.js';
import { agentsOf, completed, FAST_RUNS, trigger } from '../support/runs.js';
import { createLocation, startTestServer, type TestServer } from '../support/server.js';

if (noChromium || noEngine) {
  console.warn(
    `skipping the code-bundle end-to-end test: ${noChromium ? 'no Chromium' : `no node22 engine in ${runtimesDir}`}`,
  );
}

describe.skipIf(noChromium || noEngine)('a PLAYWRIGHT check with an uploaded code bundle', () => {
  let server: TestServer;
  let shop: HttpServer;
  let agent: TestAgent | undefined;
  let dir: string;
  let previousCacheDir: string | undefined;

  beforeAll(async () => {
    shop = await startShop();
    dir = await mkdtemp(join(tmpdir(), 'vantage-e2e-bundle-'));
    await chmod(dir, 0o777);
    // A dependency cache of its own, so the install runs here whatever earlier runs left in the shared cache.
    previousCacheDir = process.env.VANTAGE_CACHE_DIR;
    process.env.VANTAGE_CACHE_DIR = join(dir, 'cache');
    server = await startTestServer('pglite', { runs: FAST_RUNS });
  });
  afterAll(async () => {
    if (previousCacheDir === undefined) delete process.env.VANTAGE_CACHE_DIR;
    else process.env.VANTAGE_CACHE_DIR = previousCacheDir;
    await agent?.agent.stop();
    await server?.close();
    await shop?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs on an agent that fetches the bundle with its own key', { timeout: 180_000 }, async () => {
    const archive = join(dir, 'suite.tar.gz');
    await packSuite(archive);
    const bundle = await uploadBundle(server, await readFile(archive));
    expect(bundle.status).toBe(201);

    const location = await createLocation(server, 'lab');
    agent = await startTestAgent({ url: server.url, key: location.key });
    await waitFor(
      'the agent shown on its location',
      async () => (await agentsOf(server, location.id)).count === 1,
    );
    expect((await agentsOf(server, location.id)) as unknown).toMatchObject({
      engines: expect.arrayContaining(['node22']),
    });

    const installLog = join(dir, 'installs.log');
    const check = await server.api(
      'POST',
      '/v1/checks/playwright',
      bundledSuiteCheck({ bundleId: bundle.body.id, location: 'lab', tag: '@smoke', shop, installLog }),
    );
    expect(check.status).toBe(201);

    const [sessionId] = await trigger(server, [check.body.id]);
    const session = await completed(server, sessionId ?? '', 150_000);
    expect(session).toMatchObject({ status: 'PASSED' });
    expect(await readFile(installLog, 'utf8')).toBe('installed\n');
    // The key went only into the request headers: never into a log line of the agent.
    expect(agent.logs.text).not.toContain(location.key);
    expect(agent.logs.text).toMatch(/run finished/);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../../src/server/config.js';
import { type RunningServer, startServer } from '../../../src/server/server.js';
import {
  createApiCheck,
  createLocation,
  freshPostgresDatabase,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2]?.split(',') ?? [];
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}

describe.each(STORES)('GET /metrics: the queues for autoscalers (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  afterAll(async () => server?.close());

  const scrape = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/metrics`, { headers });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };

  it('shows the queued runs of a location without agents, and how long the oldest has waited', async () => {
    const location = await createLocation(server, 'metrics-berlin');
    const idle = await createLocation(server, 'metrics-idle');
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    for (let i = 0; i < 3; i++) {
      const { status } = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [checkId] },
      });
      expect(status).toBe(201);
    }
    clock.advance(90_000);

    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    const at = (slug: string) => ({ account: server.accountId, location: slug });
    expect(text).toContain('# TYPE vantage_location_queue_size gauge');
    expect(sample(text, 'vantage_location_queue_size', at(location.slugName))).toBe(3);
    expect(sample(text, 'vantage_location_oldest_queued_seconds', at(location.slugName))).toBe(90);
    expect(sample(text, 'vantage_location_agents_connected', at(location.slugName))).toBe(0);
    expect(sample(text, 'vantage_location_queue_size', at(idle.slugName))).toBe(0);
    expect(sample(text, 'vantage_location_oldest_queued_seconds', at(idle.slugName))).toBe(0);
  });

  it('is not part of the public API document', async () => {
    const document = (await server.api('GET', '/openapi.json')).body;
    expect(Object.keys(document.paths)).not.toContain('/metrics');
  });
});

describe('GET /metrics with METRICS_TOKEN in the server env', () => {
  const token = 'scrape-secret-0123456789';
  let running: RunningServer;
  let database: { url: string; drop: () => Promise<void> } | null = null;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vantage-metrics-'));
    if (process.env.TEST_DATABASE_URL) database = await freshPostgresDatabase();
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      VANTAGE_DATA_DIR: dataDir,
      LOG_LEVEL: 'ERROR',
      METRICS_TOKEN: token,
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const loaded = loadServerConfig(env);
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    running = await startServer({
      config: loaded.config,
      version: '0.0.0-test',
      runs: { background: false },
    });
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const scrape = async (headers: Record<string, string> = {}) =>
    (await fetch(`${running.url}/metrics`, { headers })).status;

  it('answers 401 without the token or with another, and 200 with it', async () => {
    expect(await scrape()).toBe(401);
    expect(await scrape({ authorization: 'Bearer not-the-token' })).toBe(401);
    // The admin API key is no metrics token.
    expect(await scrape({ authorization: `Bearer ${running.bootstrap.apiKey}` })).toBe(401);
    expect(await scrape({ authorization: `Bearer ${token}` })).toBe(200);
  });
});

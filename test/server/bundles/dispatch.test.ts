import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import { runMessageOf } from '../../../src/server/queue/run.js';
import { trigger } from '../../support/runs.js';
import {
  createLocation,
  STORES,
  startTestServer,
  TEST_PUBLIC_URL,
  TestClock,
  type TestServer,
} from '../../support/server.js';
import { GZIP, playwrightCheck, uploadBundle } from './support.js';

describe.each(STORES)('runs of checks with uploaded bundles (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();
  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  afterAll(async () => server?.close());

  const lease = (location: string, engines: string[] | null) =>
    leaseRuns(server.server.runs.db, {
      accountId: server.accountId,
      location,
      agentId: 'bundle-agent',
      credits: { light: 0, browser: 10 },
      kinds: ['PLAYWRIGHT'],
      engines,
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
  const getBundle = (runId: string, key: string) =>
    fetch(`${server.url}/v1/agent/runs/${runId}/bundle`, {
      headers: { authorization: `Bearer ${key}`, 'x-service-account': server.accountId },
    });

  it('go only to agents with the engine, get a bundle URL, and serve the bundle to that location only', async () => {
    const lab = await createLocation(server, 'bundle-lab');
    const elsewhere = await createLocation(server, 'bundle-elsewhere');
    const bundle = await uploadBundle(server, GZIP);
    const check = await server.api(
      'POST',
      '/v1/checks/playwright',
      playwrightCheck(`bundle:${bundle.body.id}`, { privateLocations: ['bundle-lab'], engine: 'node24' }),
    );
    expect(check.status).toBe(201);
    await trigger(server, [check.body.id]);

    expect(await lease('bundle-lab', ['node22', 'bun1.3'])).toEqual([]);
    const [run] = await lease('bundle-lab', ['node22', 'node24']);
    if (!run) throw new Error('no run leased');
    expect(run.payload.check.codeBundlePath).toBe(`bundle:${bundle.body.id}`);
    expect(runMessageOf(run, TEST_PUBLIC_URL).check.codeBundlePath).toBe(
      `${TEST_PUBLIC_URL}/v1/agent/runs/${run.id}/bundle`,
    );

    const served = await getBundle(run.id, lab.key);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/gzip');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(GZIP);
    expect((await getBundle(run.id, elsewhere.key)).status).toBe(404);
    expect((await getBundle(run.id, server.apiKey)).status).toBe(403);
  });

  it('runs with the account runtime when neither the check nor its group names one', async () => {
    await createLocation(server, 'runtime-lab');
    const bundle = await uploadBundle(server, GZIP);
    const check = await server.api(
      'POST',
      '/v1/checks/playwright',
      playwrightCheck(`bundle:${bundle.body.id}`, { privateLocations: ['runtime-lab'] }),
    );
    await server.server.context.db.query("UPDATE accounts SET runtime_id = '2025.04' WHERE id = $1", [
      server.accountId,
    ]);
    await trigger(server, [check.body.id]);
    const [run] = await lease('runtime-lab', ['node22']);
    expect(run?.payload.check.runtimeId).toBe('2025.04');
  });
});

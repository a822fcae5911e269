import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_TYPES } from '../../src/checks/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { startHttpServer, type TestServer } from '../support/http-servers.js';
import { startTestAgent, TEST_KEY, type TestAgent } from './support/agent.js';
import { apiCheck } from './support/checks.js';

let target: TestServer;
let inFlight = 0;
let maxInFlight = 0;
let hits = 0;
const seen: string[] = [];

beforeAll(async () => {
  // /slow?ms=N answers after N ms; every request is counted, and how many were in flight at once.
  target = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    hits++;
    seen.push(url.pathname + url.search);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const ms = Number(url.searchParams.get('ms') ?? 0);
    const timer = setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }, ms);
    res.on('close', () => {
      if (!res.writableEnded) {
        clearTimeout(timer);
        inFlight--;
      }
    });
  });
});
afterAll(() => target.close());

let fake: FakeControlPlane;
let running: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(running.map((a) => a.agent.stop()));
  running = [];
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

async function agentOn(env: Record<string, string> = {}): Promise<TestAgent> {
  const agent = await startTestAgent(fake, env);
  running.push(agent);
  return agent;
}

describe('agent: handshake and pulling', () => {
  it('says hello with its protocol version, identity, slots and what it can run (and why not)', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const { agent } = await agentOn({ JOB_CONCURRENCY: '3', BROWSER_CONCURRENCY: '0' });
    const connection = await fake.waitFor('a welcomed connection', () => fake.live[0]);
    const hello = connection.hello;
    expect(hello).toMatchObject({
      type: 'hello',
      protocolVersion: PROTOCOL_VERSION,
      agentId: agent.agentId,
      slots: { light: 3, browser: 0 },
      running: [],
    });
    expect(hello?.agentVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(hello?.nodeVersion).toBe(process.version);
    expect(Array.isArray(hello?.runtimes)).toBe(true);
    expect(Object.keys(hello?.capabilities ?? {}).sort()).toEqual([...CHECK_TYPES].sort());
    for (const kind of ['URL', 'API', 'TCP', 'DNS'] as const) {
      expect(hello?.capabilities[kind]).toEqual({ available: true, reason: null });
    }
    for (const kind of ['BROWSER', 'MULTI_STEP', 'PLAYWRIGHT'] as const) {
      expect(hello?.capabilities[kind]).toEqual({
        available: false,
        reason: expect.stringContaining('not built yet'),
      });
    }
    expect(hello?.capabilities.AGENTIC.available).toBe(false);
    expect(hello?.capabilities.HEARTBEAT.reason).toMatch(/control plane/);
    const icmp = hello?.capabilities.ICMP;
    expect(icmp?.available === true || /NET_RAW|raw socket/.test(icmp?.reason ?? '')).toBe(true);
    // It grants exactly its free slots, and keeps the connection alive with heartbeats.
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    expect(fake.received('credit')).toEqual([{ type: 'credit', credits: { light: 3, browser: 0 } }]);
    await fake.waitFor('a heartbeat', () => fake.received('heartbeat')[0]);
    expect(fake.received('heartbeat')[0]).toEqual({ type: 'heartbeat', running: [], queued: 0 });
  });

  it('runs a check and reports its result under the idempotency key <runId>:<attempt>', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const { agent } = await agentOn();
    const run = fake.enqueue(fake.run(apiCheck(target.url('/plain')), { attempt: 2 }));
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:2`));
    expect(upload).toMatchObject({ runId: run.runId, attempt: 2, agentId: agent.agentId, status: 'PASSED' });
    expect(upload.networkError).toBe(false);
    expect(upload.result).toMatchObject({
      checkId: run.check.id,
      checkType: 'API',
      runLocation: 'berlin-1',
      resultType: 'FINAL',
      attempts: 2,
      hasErrors: false,
    });
    expect((upload.result.apiCheckResult as { response: { status: number } }).response.status).toBe(200);
    expect(seen).toContain('/plain');
  });

  it('never holds more runs than its slots and grants only the credit it has', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    maxInFlight = 0;
    await agentOn({ JOB_CONCURRENCY: '2' });
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    const runs = Array.from({ length: 7 }, () => fake.enqueue(fake.run(apiCheck(target.url('/?ms=150')))));
    await fake.waitFor('all results', () => runs.every((r) => fake.results.has(`${r.runId}:1`)));
    expect(maxInFlight).toBe(2);
    const [connection] = fake.connections;
    // Two slots at the start, then one more for each run that finished: never more.
    expect(connection?.granted.light).toBeLessThanOrEqual(2 + runs.length);
    expect(fake.resultPosts.filter((p) => p.duplicate)).toEqual([]);
  });

  it('reports a check that does not validate as FAILED, naming the problems', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    await agentOn();
    const run = fake.enqueue(
      fake.run({ id: 'broken-1', checkType: 'API', name: 'Broken', request: { method: 'GET' } }),
    );
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('FAILED');
    expect(upload.result).toMatchObject({ checkId: 'broken-1', name: 'Broken', hasErrors: true });
    expect(JSON.stringify(upload.result)).toMatch(/request\.url: is required/);
  });

  it('cancel from the control plane reaches the executor: the run stops and is CANCELLED', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    await agentOn();
    const before = hits;
    const run = fake.enqueue(fake.run(apiCheck(target.url('/?ms=20000&cancel'))));
    await fake.waitFor('the request at the target', () => hits > before);
    const started = Date.now();
    fake.cancel(run.runId);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(upload.status).toBe('CANCELLED');
    expect(upload.result).toMatchObject({ isCancelled: true, aborted: true });
  });

  it('stops a run at its execution limit and reports TIMED_OUT', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    // 30 s for API checks, scaled down to 300 ms.
    await agentOn({ AGENT_RUN_LIMIT_SCALE: '0.01' });
    const run = fake.enqueue(fake.run(apiCheck(target.url('/?ms=20000&deadline'))));
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('TIMED_OUT');
    expect(upload.result).toMatchObject({ aborted: true, isCancelled: false });
  });

  it('with two agents on one location every run is executed exactly once', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    await agentOn({ JOB_CONCURRENCY: '2' });
    await agentOn({ JOB_CONCURRENCY: '2' });
    await fake.waitFor('two agents', () => fake.live.length === 2 && fake.received('credit').length >= 2);
    const before = seen.length;
    const runs = Array.from({ length: 8 }, (_, i) =>
      fake.enqueue(fake.run(apiCheck(target.url(`/?ms=50&n=${i}`)))),
    );
    await fake.waitFor('all results', () => runs.every((r) => fake.results.has(`${r.runId}:1`)));
    const requests = seen.slice(before).filter((p) => p.includes('n='));
    expect(requests.sort()).toEqual(runs.map((_, i) => `/?ms=50&n=${i}`).sort());
    const agents = new Set([...fake.results.values()].map((r) => r.agentId));
    expect(agents.size).toBe(2);
  });
});

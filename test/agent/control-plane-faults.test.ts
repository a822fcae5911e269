/**
 * What the agent does with answers the real control plane never gives (see test/support/fake-control-plane.ts
 * for why these use a stand-in): it must survive them without losing or repeating work. And how it grants credit,
 * which the real control plane does not show: the stand-in counts the messages.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/agent.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/protocol/index.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import { FAKE_KEY, FakeControlPlane } from '../support/fake-control-plane.js';
import { spooledResults } from '../support/spool-files.js';

/** A check as a control plane stores it, against a local URL. */
function apiCheck(url: string): Record<string, unknown> {
  return {
    id: `check-${Math.random().toString(36).slice(2, 10)}`,
    checkType: 'API',
    name: 'API check',
    request: {
      url,
      method: 'GET',
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null }],
    },
  };
}

let target: CountingTarget;
beforeAll(async () => {
  target = await startCountingTarget();
});
afterAll(() => target.close());

let fake: FakeControlPlane;
let agent: TestAgent | null = null;
afterEach(async () => {
  await agent?.agent.stop();
  agent = null;
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

async function connectedAgent(
  env: Record<string, string> = {},
  options: AgentOptions = {},
): Promise<TestAgent> {
  fake = await FakeControlPlane.start();
  agent = await startTestAgent({ url: fake.url, key: FAKE_KEY }, env, options);
  await fake.waitFor('credit', () => fake.received('credit')[0]);
  return agent;
}

const released = () => fake.received('release').flatMap((m) => m.runIds);
const spooled = async (dataDir: string) => (await spooledResults(dataDir)).length;

describe('agent: a control plane that misbehaves', () => {
  it('logs an UNSUPPORTED_PROTOCOL refusal clearly and retries slowly, never in a loop', async () => {
    fake = await FakeControlPlane.start();
    fake.speaks = [];
    agent = await startTestAgent({ url: fake.url, key: FAKE_KEY });
    const { logs, health } = agent;
    await fake.waitFor('the refusal logged', () => logs.text.includes('refused this agent'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Each version it speaks is offered once (the newest, then each older one), then it waits.
    expect(fake.upgrades).toBe(SUPPORTED_PROTOCOL_VERSIONS.length);
    const line = logs.entries().find((e) => String(e.msg).includes('refused this agent'));
    expect(line).toMatchObject({ level: 'error' });
    expect(String(line?.msg)).toMatch(/UNSUPPORTED_PROTOCOL.*trying again in 1 minute/);
    expect((await health('/-/readiness')).status).toBe(503);
    expect(JSON.parse((await health('/health')).text).status).toBe('starting');
  });

  it('offers an older protocol version to a control plane that speaks only that, and keeps to its fields', async () => {
    fake = await FakeControlPlane.start();
    fake.speaks = [1];
    agent = await startTestAgent({ url: fake.url, key: FAKE_KEY });
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    const hellos = fake.received('hello');
    expect(hellos.map((hello) => hello.protocolVersion)).toEqual([3, 2, 1]);
    const [newest, older] = [hellos[0], hellos.at(-1)];
    expect(newest?.engines).toBeDefined();
    expect(older).not.toHaveProperty('engines');
    const run = fake.run(apiCheck(target.url('/older-protocol')));
    fake.send(run);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('PASSED');
    const permanent = fake.run(apiCheck('http://{{NO_SUCH_HOST}}/'));
    fake.send(permanent);
    const failed = await fake.waitFor('the result', () => fake.results.get(`${permanent.runId}:1`));
    expect(failed.status).toBe('FAILED');
    expect(failed).not.toHaveProperty('permanentError');
    expect(fake.violations).toEqual([]);
  });

  it('sends results one by one to a control plane of version 1', async () => {
    fake = await FakeControlPlane.start();
    fake.speaks = [1];
    agent = await startTestAgent({ url: fake.url, key: FAKE_KEY }, {}, { resultBatchLingerMs: 2000 });
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    const runs = [0, 1, 2].map((i) => fake.run(apiCheck(target.url(`/v1-single-${i}`))));
    for (const run of runs) fake.send(run);
    const keys = runs.map((run) => `${run.runId}:1`);
    await fake.waitFor('the results', () => keys.every((key) => fake.results.has(key)));
    expect(fake.batches).toEqual([]);
    expect([...fake.singles].sort()).toEqual([...keys].sort());
  });

  it('sends results in batches to a control plane of version 2, each settled by its own answer', async () => {
    const { logs } = await connectedAgent({ JOB_CONCURRENCY: '10' }, { resultBatchLingerMs: 1500 });
    const refused = fake.run(apiCheck(target.url('/batch-refused')));
    const gone = fake.run(apiCheck(target.url('/batch-gone')));
    fake.answerResult = (upload) => {
      if (upload.runId === gone.runId) return 404;
      return upload.runId === refused.runId && 'apiCheckResult' in upload.result ? 422 : null;
    };
    const fine = [0, 1, 2, 3].map((i) => fake.run(apiCheck(target.url(`/batch-fine-${i}`))));
    for (const run of [...fine, refused, gone]) fake.send(run);
    const keys = fine.map((run) => `${run.runId}:1`);
    await fake.waitFor('the results', () => keys.every((key) => fake.results.has(key)));
    // The refused one comes again as its essentials; the one that is not ours is dropped.
    const essentials = await fake.waitFor('the essentials', () => fake.results.get(`${refused.runId}:1`));
    expect(essentials.result.notes).toEqual([expect.stringContaining('HTTP 422')]);
    await fake.waitFor('the dropped result logged', () => logs.text.includes('not ours to report'));
    expect(fake.singles).toEqual([]);
    expect(fake.batches[0]).toHaveLength(6);
    expect(fake.results.has(`${gone.runId}:1`)).toBe(false);
    await waitFor('an empty spool', async () => (await spooled(agent?.dataDir ?? '')) === 0);
  });

  it('holds a result for company while a run is in progress, and sends a batch at once when none is', async () => {
    // A linger of a minute: a result that waited for it would never arrive within the test's waits.
    await connectedAgent({ JOB_CONCURRENCY: '10' }, { resultBatchLingerMs: 60_000 });
    const quick = fake.run(apiCheck(target.url('/company-quick')));
    const slow = fake.run(apiCheck(target.url('/company-slow?hold')));
    fake.send(slow);
    fake.send(quick);
    await waitFor('the slow request held', () => target.held('/company-slow') === 1);
    await waitFor('the quick result spooled', async () => (await spooled(agent?.dataDir ?? '')) === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.batches).toEqual([]);
    target.release('/company-slow');
    const keys = [quick, slow].map((run) => `${run.runId}:1`);
    await fake.waitFor('both results', () => keys.every((key) => fake.results.has(key)));
    expect(fake.batches).toEqual([keys]);
    const lone = fake.run(apiCheck(target.url('/company-lone')));
    fake.send(lone);
    await fake.waitFor('the lone result', () => fake.results.get(`${lone.runId}:1`));
    expect(fake.batches.at(-1)).toEqual([`${lone.runId}:1`]);
  });

  it('sends the results of a batch the control plane refuses as a whole one by one', async () => {
    const { logs } = await connectedAgent({}, { resultBatchLingerMs: 500 });
    fake.batchStatus = 404;
    const runs = [0, 1].map((i) => fake.run(apiCheck(target.url(`/no-batch-route-${i}`))));
    for (const run of runs) fake.send(run);
    const keys = runs.map((run) => `${run.runId}:1`);
    await fake.waitFor('the results', () => keys.every((key) => fake.results.has(key)));
    expect([...fake.singles].sort()).toEqual([...keys].sort());
    expect(logs.text).toContain('refused a batch of results as a whole');
  });

  it('tells a control plane of version 2 that a failure is permanent, so that it is not retried', async () => {
    await connectedAgent();
    const run = fake.run(apiCheck('http://{{NO_SUCH_HOST}}/'));
    fake.send(run);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload).toMatchObject({ status: 'FAILED', networkError: false, permanentError: true });
  });

  it('ignores messages that are not JSON or not of the protocol, and keeps working', async () => {
    const { logs } = await connectedAgent();
    fake.send('this is not JSON');
    fake.send(JSON.stringify({ type: 'surprise', payload: 1 }));
    fake.send(JSON.stringify({ type: 'run', runId: 42 }));
    const run = fake.run(apiCheck(target.url('/after-garbage')));
    fake.send(run);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('PASSED');
    expect(logs.text).toContain('not JSON');
    expect(
      logs.entries().filter((e) => e.msg === 'ignored a message the protocol does not allow'),
    ).toHaveLength(2);
    expect(fake.received('hello')).toHaveLength(1);
  });

  it('reports a check that does not validate as FAILED, naming the problems', async () => {
    await connectedAgent();
    const run = fake.run({ id: 'broken-1', checkType: 'API', name: 'Broken', request: { method: 'GET' } });
    fake.send(run);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('FAILED');
    expect(upload.result).toMatchObject({ checkId: 'broken-1', name: 'Broken', hasErrors: true });
    expect(JSON.stringify(upload.result)).toMatch(/request\.url: is required/);
  });

  it('hands back a run sent without credit for it, without running it', async () => {
    const { logs } = await connectedAgent({ JOB_CONCURRENCY: '1' });
    const granted = fake.run(apiCheck(target.url('/granted?ms=300')));
    const extra = fake.run(apiCheck(target.url('/without-credit')));
    fake.send(granted);
    fake.send(extra);
    await fake.waitFor('the extra run released', () => released().includes(extra.runId));
    await fake.waitFor('the granted result', () => fake.results.get(`${granted.runId}:1`));
    expect(logs.text).toContain('without credit');
    expect(target.count('/without-credit')).toBe(0);
    expect(fake.results.has(`${extra.runId}:1`)).toBe(false);
  });

  it('hands back a run that arrives after its release on shutdown, while the running one completes', async () => {
    const test = await connectedAgent({ JOB_CONCURRENCY: '2' });
    const running = fake.run(apiCheck(target.url('/running?ms=600')));
    fake.send(running);
    await waitFor('the check at the target', () => target.count('/running') === 1);
    const stopping = test.agent.stop();
    await fake.waitFor('the release', () => fake.received('release')[0]);
    // On the credit the agent granted before it released: the real control plane voids it on the release.
    const late = fake.run(apiCheck(target.url('/late')));
    fake.send(late);
    await fake.waitFor('the late run released', () => released().includes(late.runId));
    await stopping;
    agent = null;
    expect(fake.results.get(`${running.runId}:1`)?.status).toBe('PASSED');
    expect(target.count('/late')).toBe(0);
  });

  it('sends a result again while the control plane answers 503, until it takes it', async () => {
    const { logs } = await connectedAgent();
    fake.resultStatus = 503;
    const run = fake.run(apiCheck(target.url('/unavailable')));
    fake.send(run);
    await fake.waitFor('a 503 logged', () => logs.text.includes('it will be sent again'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    fake.resultStatus = null;
    await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(target.count('/unavailable')).toBe(1);
  });

  it('sends the essentials of a result the control plane refuses whole, keeping its true status', async () => {
    const { logs } = await connectedAgent();
    // Full results (with their detail object) are refused as too large; the essentials are taken.
    fake.answerResult = (upload) => ('apiCheckResult' in upload.result ? 413 : null);
    const run = fake.run(apiCheck('http://127.0.0.1:9/closed-port'));
    fake.send(run);
    const taken = await fake.waitFor('the essentials', () => fake.results.get(`${run.runId}:1`));
    expect(logs.text).toContain('sending its essentials instead');
    expect(taken.status).toBe('FAILED');
    expect(taken.result).toMatchObject({
      hasErrors: true,
      errorResult: { requestError: expect.stringContaining('ECONNREFUSED') },
      notes: [expect.stringContaining('did not take the full result (HTTP 413)')],
    });
  });

  it('counts a result that gets server errors while others get through as refused, and sends its essentials', async () => {
    const { logs } = await connectedAgent();
    const poisoned = fake.run(apiCheck(target.url('/poisoned')));
    fake.answerResult = (upload) =>
      upload.runId === poisoned.runId && 'apiCheckResult' in upload.result ? 500 : null;
    fake.send(poisoned);
    await fake.waitFor('a 500 logged', () => logs.text.includes('it will be sent again'));
    // Others keep getting through.
    for (let i = 0; i < 4; i++) {
      const other = fake.run(apiCheck(target.url(`/fine-${i}`)));
      fake.send(other);
      await fake.waitFor('another result', () => fake.results.get(`${other.runId}:1`));
    }
    const taken = await fake.waitFor('the essentials', () => fake.results.get(`${poisoned.runId}:1`), 20_000);
    expect(taken.status).toBe('PASSED');
    expect(taken.result.notes).toEqual([expect.stringContaining('HTTP 500')]);
  });

  it('drops a result whose essentials are refused for good too (a 4xx other than 408 and 429), and logs it', async () => {
    const { logs, dataDir } = await connectedAgent();
    fake.resultStatus = 410;
    fake.send(fake.run(apiCheck(target.url('/refused'))));
    await fake.waitFor('the refusal logged', () => logs.text.includes('refused even the essentials'));
    await waitFor('an empty spool', async () => (await spooled(dataDir)) === 0);
  });
});

/** Light credit granted after the first grant, message by message. */
const regrants = () => fake.received('credit').slice(1);
const regranted = () => regrants().reduce((sum, m) => sum + m.credits.light, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent: credit for freed slots', () => {
  it('grants the slots freed within a second together while the control plane holds half its credit', async () => {
    await connectedAgent({ JOB_CONCURRENCY: '40' });
    const path = (i: number) => `/step-${String(i).padStart(2, '0')}`;
    // One run every 100 ms, as the phase steps of a low load bring them: each is done long before the next.
    for (let i = 0; i < 15; i++) {
      fake.send(fake.run(apiCheck(target.url(path(i)))));
      await sleep(100);
    }
    await fake.waitFor('every freed slot granted again', () => regranted() === 15, 5000);
    for (let i = 0; i < 15; i++) expect(target.count(path(i))).toBe(1);
    // Granted as each slot was freed, these were 13 messages or more.
    expect(regrants().length).toBeLessThanOrEqual(3);
  });

  it('grants at once when a burst takes the control plane below half its credit', async () => {
    await connectedAgent({ JOB_CONCURRENCY: '4' });
    fake.send(fake.run(apiCheck(target.url('/first'))));
    await fake.waitFor('the first run done', () => target.count('/first') === 1);
    await sleep(100);
    // Its slot waits to be granted: the control plane still holds 3 of the 4.
    expect(regranted()).toBe(0);
    const sentAt = Date.now();
    for (const burst of ['/burst-1', '/burst-2', '/burst-3'])
      fake.send(fake.run(apiCheck(target.url(burst))));
    await fake.waitFor('the waiting slot granted', () => regranted() >= 1);
    expect(Date.now() - sentAt).toBeLessThan(700);
    await fake.waitFor('the burst done', () => fake.results.size === 4);
  });
});

describe('agent: runs sent ahead of their start (protocol version 3)', () => {
  it('starts a run when its startInMs has passed, naming it as its own meanwhile', async () => {
    await connectedAgent();
    const run = { ...fake.run(apiCheck(target.url('/ahead'))), startInMs: 600 };
    const sentAt = Date.now();
    fake.send(run);
    // Held, on its slot: a heartbeat names it, and the target has not seen it yet.
    const heartbeats = fake.received('heartbeat').length;
    const held = await fake.waitFor('a heartbeat', () => fake.received('heartbeat')[heartbeats]);
    expect(held.running).toContain(run.runId);
    expect(target.count('/ahead')).toBe(0);
    await waitFor('the check at the target', () => target.count('/ahead') === 1);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(600);
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('PASSED');
  });

  it('drops a run cancelled before its start and reports it CANCELLED, without running it', async () => {
    await connectedAgent();
    const run = { ...fake.run(apiCheck(target.url('/cancelled-ahead'))), startInMs: 800 };
    fake.send(run);
    await sleep(100);
    fake.send({ type: 'cancel', runId: run.runId });
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('CANCELLED');
    await sleep(900);
    expect(target.count('/cancelled-ahead')).toBe(0);
  });

  it('releases a run still waiting for its start when it shuts down', async () => {
    const test = await connectedAgent();
    const run = { ...fake.run(apiCheck(target.url('/released-ahead'))), startInMs: 5_000 };
    fake.send(run);
    await sleep(100);
    await test.agent.stop();
    agent = null;
    expect(released()).toContain(run.runId);
    expect(target.count('/released-ahead')).toBe(0);
    expect(fake.results.has(`${run.runId}:1`)).toBe(false);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

describe.each(STORES)('check statuses and aggregates (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;

  beforeAll(async () => {
    bench = await AlertBench.start(store, 'statuses');
    server = bench.server;
  });
  afterAll(async () => bench?.close());

  const status = async (checkId: string) => {
    const answer = await server.api('GET', `/v1/check-statuses/${checkId}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('tells each check’s state and what its last run found', async () => {
    const check = await bench.check([], { activated: true, name: 'Orders API', tags: ['shop'] });
    expect(await status(check)).toMatchObject({ checkId: check, state: 'NO_DATA', lastCheckSessionId: null });

    const passed = await bench.session(check, 'PASSED');
    expect(await status(check)).toMatchObject({
      name: 'Orders API',
      state: 'PASSING',
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      longestRun: 12,
      shortestRun: 12,
      lastRunLocation: 'statuses',
      lastCheckSessionId: passed,
      checkType: 'API',
      tags: ['shop'],
      locations: ['statuses'],
    });

    bench.clock.advance(10_000);
    const failed = await bench.session(check, 'FAILED');
    const failing = await status(check);
    expect(failing).toMatchObject({ state: 'FAILING', alertState: 'FAILING', hasFailures: true });
    expect(failing.lastCheckSessionId).toBe(failed);
    expect(failing.lastCheckRunId).toEqual(expect.any(String));

    await server.api('PUT', `/v1/checks/${check}`, { muted: true });
    expect((await status(check)).state).toBe('MUTED');
    await server.api('PUT', `/v1/checks/${check}`, { activated: false });
    expect((await status(check)).state).toBe('PAUSED');

    const all = await server.api('GET', '/v1/check-statuses');
    expect(all.status).toBe(200);
    expect(all.body.map((s: { checkId: string }) => s.checkId)).toContain(check);
  });

  it('aggregates a check over a window from rollups and raw results, each result once', async () => {
    const check = await bench.check([], { activated: true });
    await bench.session(check, 'PASSED');
    await bench.session(check, 'DEGRADED');
    await bench.session(check, 'FAILED');
    const before = await server.api('GET', `/v1/checks/${check}/aggregates?window=24h`);
    expect(before.status).toBe(200);
    expect(before.body.total).toMatchObject({ count: 3, failures: 1, degraded: 1, successRatio: 0.6667 });
    expect(before.body.total.responseTime.p50).toBeCloseTo(12, 0);
    expect(before.body.locations).toEqual([expect.objectContaining({ location: 'statuses', count: 3 })]);
    expect(before.body.stepMs).toBe(3_600_000);

    // An hour later the first three are rolled up; two more arrive raw. Nothing is counted twice.
    bench.clock.advance(3_600_000 + 6 * 60_000);
    await server.server.runs.retentionTick();
    await bench.session(check, 'PASSED');
    await bench.session(check, 'PASSED');
    const after = await server.api('GET', `/v1/checks/${check}/aggregates`);
    expect(after.body.window).toBe('24h');
    expect(after.body.total).toMatchObject({ count: 5, failures: 1, degraded: 1, successRatio: 0.8 });
    expect(after.body.series.map((s: { count: number }) => s.count)).toEqual([3, 2]);

    const lastHour = await server.api('GET', `/v1/checks/${check}/aggregates?window=1h`);
    expect(lastHour.body.total.count).toBe(2);
    expect(lastHour.body.stepMs).toBe(60_000);
    const elsewhere = await server.api('GET', `/v1/checks/${check}/aggregates?location=nowhere`);
    expect(elsewhere.body.total).toMatchObject({ count: 0, successRatio: null, responseTime: null });

    const summaries = await server.api('GET', '/v1/check-aggregates?window=24h');
    expect(summaries.status).toBe(200);
    const mine = summaries.body.checks.find((c: { checkId: string }) => c.checkId === check);
    expect(mine).toMatchObject({ count: 5, failures: 1 });
    expect(mine.responseTimes).toHaveLength(24);
    expect(mine.responseTimes.filter((t: number | null) => t !== null)).toHaveLength(2);
  });

  it('streams a check’s status as server-sent events when a run changes it', async () => {
    const check = await bench.check([], { activated: true, name: 'Streamed' });
    const controller = new AbortController();
    const answer = await fetch(`${server.url}/v1/check-statuses/events`, {
      headers: server.headers,
      signal: controller.signal,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const nextStatus = async (state: string) => {
      for (;;) {
        const events = text.split('\n\n').filter((e) => e.startsWith('event: status'));
        const found = events
          .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)))
          .find((s) => s.checkId === check && s.state === state);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        text += decoder.decode(value);
      }
    };
    await bench.session(check, 'FAILED');
    expect(await nextStatus('FAILING')).toMatchObject({ name: 'Streamed', hasFailures: true });
    bench.clock.advance(10_000);
    await bench.session(check, 'PASSED');
    expect(await nextStatus('PASSING')).toMatchObject({ hasFailures: false });
    controller.abort();
  });

  it('answers 404 for an unknown check and 400 naming `window` for a window it does not offer', async () => {
    expect((await server.api('GET', `/v1/check-statuses/${randomUUID()}`)).status).toBe(404);
    expect((await server.api('GET', `/v1/checks/${randomUUID()}/aggregates`)).status).toBe(404);
    const check = await bench.check([]);
    const bad = await server.api('GET', `/v1/checks/${check}/aggregates?window=365d`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('window');
  });
});

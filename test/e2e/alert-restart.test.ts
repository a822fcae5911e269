/**
 * The outbox survives a crash: a `vantage server` process killed with SIGKILL after a failure was recorded, but
 * before its alert got through, delivers it once when it comes back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiResult, TestAgent } from '../server/runs/agent-client.js';
import { type Receiver, startReceiver } from '../support/receivers.js';
import { until } from '../support/server.js';
import { freePort, processApi, ServerProcess } from '../support/server-process.js';

describe('alert delivery across a crash', () => {
  const folder = mkdtempSync(join(tmpdir(), 'vantage-alert-restart-'));
  const processes: ServerProcess[] = [];
  let receiver: Receiver | undefined;
  let agent: TestAgent | undefined;
  afterAll(async () => {
    agent?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await receiver?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('delivers a notification written before a kill -9 exactly once after the restart', {
    timeout: 180_000,
  }, async () => {
    const port = await freePort();
    const hookPort = await freePort();
    const env = { PORT: String(port), VANTAGE_DATA_DIR: join(folder, 'data'), LOG_LEVEL: 'WARN' };
    const first = new ServerProcess(env);
    processes.push(first);
    await first.listening(120_000);
    const key = await first.keyPrinted();
    const base = `http://127.0.0.1:${port}`;
    const api = (method: string, path: string, body?: unknown) => processApi(port, key, method, path, body);
    const location = await api('POST', '/v1/private-locations', { name: 'Crash', slugName: 'crash' });
    const channel = await api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'after the crash', url: `http://127.0.0.1:${hookPort}/hook` },
    });
    const check = await api('POST', '/v1/checks', {
      checkType: 'API',
      name: 'Crashing',
      request: { url: 'http://127.0.0.1:9/' },
      privateLocations: ['crash'],
      activated: false,
      doubleCheck: false,
    });
    expect(check.body.alertChannelSubscriptions).toEqual([
      { alertChannelId: channel.body.id, activated: true },
    ]);

    agent = await TestAgent.connect(base, location.body.keys[0].rawKey, key.accountId, {
      agentId: 'crash-agent',
    });
    agent.credit(1);
    await api('POST', '/v2/check-sessions/trigger', { target: { checkId: [check.body.id] } });
    const run = await agent.next('run', 20_000);
    expect((await agent.postResult(run as never, apiResult({ failed: 'down' }))).status).toBe(200);
    // The receiver is not up yet: the first attempt fails and the notification waits for its retry.
    const pending = await until(
      async () => (await api('GET', '/v1/alert-notifications')).body,
      (list: any[]) => list[0]?.attempts >= 1,
      20_000,
    );
    expect(pending[0]).toMatchObject({ status: 'PENDING', alertType: 'ALERT_FAILURE' });
    agent.close();
    first.kill('SIGKILL');
    await first.exited;

    receiver = await startReceiver([], { port: hookPort });
    const second = new ServerProcess(env);
    processes.push(second);
    await second.listening(120_000);
    await until(
      async () => receiver?.received.length ?? 0,
      (count) => count >= 1,
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({
      ALERT_TYPE: 'ALERT_FAILURE',
      CHECK_NAME: 'Crashing',
    });
    const [sent] = (await api('GET', '/v1/alert-notifications')).body;
    expect(sent).toMatchObject({ status: 'SENT', responseStatus: 200 });
    expect(receiver.received[0]?.headers['x-vantage-notification-id']).toBe(sent.id);
  });
});

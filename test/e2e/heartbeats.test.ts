/**
 * End to end, as a new user would try it: a real `vantage server` process, a heartbeat with a 30 s period and 10 s
 * grace, a job that pings it with curl and then stops, and an e-mail channel to a local SMTP server. The failure
 * mail comes within period + grace + 5 s of the last ping; the next ping sends the recovery.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver } from '../support/receivers.js';
import { until } from '../support/server.js';
import { freePort, processApi, ServerProcess } from '../support/server-process.js';

const run = promisify(execFile);

describe('a heartbeat that stops pinging (vantage server process)', { timeout: 180_000 }, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: ServerProcess;
  let port: number;
  let key: { accountId: string; apiKey: string };
  const dir = mkdtempSync(join(tmpdir(), 'vantage-heartbeat-'));

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    port = await freePort();
    server = new ServerProcess({
      LOG_LEVEL: 'WARN',
      PORT: String(port),
      VANTAGE_DATA_DIR: join(dir, 'data'),
      SMTP_URL: smtp.url,
      ALERT_EMAIL_FROM: 'alerts@vantage.test',
    });
    await server.listening();
    key = await server.keyPrinted();
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) => processApi(port, key, method, path, body);
  const subjects = async () =>
    Promise.all(smtp.mails.map(async (m) => (await simpleParser(m.data)).subject ?? ''));

  it('mails the failure within period + grace + 5 s of the last ping, and the recovery on the next ping', async () => {
    const channel = await api('POST', '/v1/alert-channels', {
      type: 'EMAIL',
      config: { address: 'oncall@vantage.test' },
    });
    expect(channel.status).toBe(201);
    const created = await api('POST', '/v1/checks/heartbeat?autoAssignAlerts=false', {
      name: 'Nightly backup',
      heartbeat: { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds' },
      alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }],
    });
    expect(created.status).toBe(201);
    const pingUrl = `http://127.0.0.1:${port}/heartbeats/${created.body.heartbeat.pingToken}`;
    const ping = () => run('curl', ['-fsS', '--max-time', '10', pingUrl]);

    // The job runs three times, 2 s apart, then stops.
    for (let i = 0; i < 3; i++) {
      await ping();
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const lastPing = Date.now() - 2000;
    await until(subjects, (list) => list.length > 0, 60_000);
    expect(Date.now() - lastPing).toBeLessThan(45_000);
    expect(Date.now() - lastPing).toBeGreaterThanOrEqual(40_000 - 1000);
    expect(await subjects()).toEqual(['"Nightly backup" is failing']);
    const events = (await api('GET', `/v1/checks/heartbeats/${created.body.id}/events`)).body;
    expect(events.map((e: { state: string }) => e.state)).toEqual([
      'FAILING',
      'PASSING',
      'PASSING',
      'PASSING',
    ]);
    expect(events[1].source).toBe('HTTP GET from 127.0.0.1');
    expect(events[1].userAgent).toMatch(/^curl\//);

    await ping();
    await until(subjects, (list) => list.length > 1, 10_000);
    expect((await subjects())[1]).toMatch(/recovered/);
  });
});

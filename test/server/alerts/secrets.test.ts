import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../../support/agent.js';
import { type TestServer as HttpServer, startHttpServer } from '../../support/http-servers.js';
import { AlertBench } from './support.js';

const SECRETS = {
  header: 'hdr-secret-value-1111',
  signing: 'sign-secret-value-2222',
  routing: 'pd-secret-value-3333',
  opsgenie: 'og-secret-value-4444',
  variable: 'var-secret-value-5555',
};

/** Channel credentials reach their receivers, and nothing else: not answers, notifications or logs. */
describe('alert channel secrets', () => {
  let bench: AlertBench;
  let echo: HttpServer;
  const { logger, logs } = capturingLogger('DEBUG');

  beforeAll(async () => {
    // A receiver that fails and echoes what it was sent, credentials included, in its answer.
    echo = await startHttpServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      res.writeHead(500).end(`${JSON.stringify(req.headers)} ${Buffer.concat(chunks).toString()}`);
    });
    bench = await AlertBench.start('pglite', 'secrets', {
      logger: logger as never,
      alerting: { pagerDutyEventsUrl: echo.url('/pd'), opsgenieApiUrl: echo.url('/og') },
    });
  });
  afterAll(async () => {
    await bench?.close();
    await echo?.close();
  });

  it('are masked in channel answers, check answers, notifications and logs', async () => {
    await bench.server.api('POST', '/v1/variables', { key: 'TOKEN', value: SECRETS.variable, secret: true });
    const channels = [
      await bench.channel('WEBHOOK', {
        name: 'echo',
        url: echo.url('/hook'),
        headers: [
          { key: 'X-Api-Key', value: SECRETS.header },
          { key: 'X-Token', value: '{{TOKEN}}' },
        ],
        webhookSecret: SECRETS.signing,
      }),
      await bench.channel('PAGERDUTY', { routingKey: SECRETS.routing }),
      await bench.channel('OPSGENIE', { name: 'og', apiKey: SECRETS.opsgenie }),
    ];
    const check = await bench.check(channels);
    await bench.session(check, 'FAILED');
    await bench.server.api('POST', `/v1/alert-channels/${channels[0]}/test`);

    const answers = [
      await bench.server.api('GET', '/v1/alert-channels'),
      await bench.server.api('GET', `/v1/checks/${check}`),
      await bench.server.api('GET', '/v1/alert-notifications'),
      await bench.server.api('POST', `/v1/alert-channels/${channels[0]}/test`),
    ];
    const notifications = answers[2]?.body as any[];
    expect(notifications).toHaveLength(3);
    expect(notifications.every((n) => n.status === 'PENDING' && n.responseStatus === 500)).toBe(true);
    // The receivers did get the credentials, and echoed them back.
    expect(notifications.map((n) => n.error).join(' ')).toContain('*****');
    const everything = `${JSON.stringify(answers.map((a) => a.body))}\n${logs.text}`;
    expect(logs.text).toContain('alert notification will be retried');
    for (const [name, value] of Object.entries(SECRETS)) expect(everything, name).not.toContain(value);
  });
});

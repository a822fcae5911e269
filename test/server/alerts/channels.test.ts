import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver, startSmtpReceiver } from '../../support/receivers.js';
import { AlertBench } from './support.js';

/** Each channel type against a local receiver posing as its service: what it sends, and where. */
describe('alert channels deliver what their services take', () => {
  let bench: AlertBench;
  let services: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  beforeAll(async () => {
    services = await startReceiver();
    smtp = await startSmtpReceiver();
    bench = await AlertBench.start('pglite', 'channels', {
      alerting: {
        smtpUrl: smtp.url,
        emailFrom: 'Vantage <alerts@vantage.test>',
        slackApiUrl: services.url('/slack/api'),
        pagerDutyEventsUrl: services.url('/pagerduty/v2/enqueue'),
        opsgenieApiUrl: services.url('/opsgenie'),
        twilio: {
          apiUrl: services.url('/twilio'),
          accountSid: 'AC123',
          authToken: 'twilio-auth-token-secret',
          fromNumber: '+15550001111',
        },
      },
    });
  });
  afterAll(async () => {
    await bench?.close();
    await services?.close();
    await smtp?.close();
  });

  const requestsTo = (prefix: string) => services.received.filter((r) => r.url.startsWith(prefix));

  it('PagerDuty: a trigger and a resolve with one dedup_key', async () => {
    const channel = await bench.channel('PAGERDUTY', {
      routingKey: 'pd-routing-key-123',
      serviceName: 'web',
    });
    const check = await bench.check([channel]);
    await bench.session(check, 'FAILED');
    await bench.session(check, 'PASSED');
    const events = requestsTo('/pagerduty/v2/enqueue').map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'resolve']);
    expect(events[0]).toMatchObject({
      routing_key: 'pd-routing-key-123',
      payload: { severity: 'critical', source: 'channels', summary: expect.stringContaining('is failing') },
    });
    expect(events[1].dedup_key).toBe(events[0].dedup_key);
    const shown = await bench.server.api('GET', `/v1/alert-channels/${channel}`);
    expect(shown.body.config.routingKey).toBe('*****');
  });

  it('Opsgenie: an alert created with an alias and closed by it, with the GenieKey', async () => {
    const channel = await bench.channel('OPSGENIE', { name: 'og', apiKey: 'og-api-key-456', priority: 'P2' });
    const check = await bench.check([channel]);
    await bench.session(check, 'FAILED');
    await bench.session(check, 'PASSED');
    const [create, close] = requestsTo('/opsgenie');
    expect(create?.url).toBe('/opsgenie/v2/alerts');
    expect(create?.headers.authorization).toBe('GenieKey og-api-key-456');
    const created = JSON.parse(create?.body ?? '{}');
    expect(created).toMatchObject({ priority: 'P2', source: 'Vantage' });
    expect(close?.url).toBe(`/opsgenie/v2/alerts/${created.alias}/close?identifierType=alias`);
  });

  it('Slack and the Slack app: text and blocks, to the webhook url or chat.postMessage with the token', async () => {
    const slack = await bench.channel('SLACK', { url: services.url('/slack/hook') });
    const app = await bench.channel('SLACK_APP', { channelId: 'C42', token: 'xoxb-slack-app-token' });
    const check = await bench.check([slack, app]);
    await bench.session(check, 'FAILED');
    const [hook] = requestsTo('/slack/hook');
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({
      text: expect.stringContaining('is failing'),
      blocks: expect.arrayContaining([expect.objectContaining({ type: 'header' })]),
    });
    const [posted] = requestsTo('/slack/api/chat.postMessage');
    expect(posted?.headers.authorization).toBe('Bearer xoxb-slack-app-token');
    expect(JSON.parse(posted?.body ?? '{}')).toMatchObject({ channel: 'C42' });
  });

  it('SMS and CALL: Twilio Messages and Calls with the server’s account', async () => {
    const sms = await bench.channel('SMS', { number: '+31 6 1234 5678', name: 'On call' });
    const call = await bench.channel('CALL', { number: '+31612345679', name: 'On call' });
    const check = await bench.check([sms, call]);
    await bench.session(check, 'FAILED');
    const [message] = requestsTo('/twilio/2010-04-01/Accounts/AC123/Messages.json');
    const form = new URLSearchParams(message?.body);
    expect(form.get('To')).toBe('+31612345678');
    expect(form.get('From')).toBe('+15550001111');
    expect(form.get('Body')).toContain('is failing: connect ECONNREFUSED');
    expect(message?.headers.authorization).toBe(
      `Basic ${Buffer.from('AC123:twilio-auth-token-secret').toString('base64')}`,
    );
    const [voice] = requestsTo('/twilio/2010-04-01/Accounts/AC123/Calls.json');
    expect(new URLSearchParams(voice?.body).get('Twiml')).toMatch(
      /^<Response><Say>.*is failing.*<\/Say><\/Response>$/,
    );
  });

  it('EMAIL: a text and HTML mail through the SMTP server', async () => {
    const channel = await bench.channel('EMAIL', { address: 'oncall@vantage.test' });
    const check = await bench.check([channel], { name: 'Checkout <API>' });
    await bench.session(check, 'FAILED');
    const [mail] = smtp.mails;
    expect(mail?.to).toEqual(['oncall@vantage.test']);
    expect(mail?.from).toBe('alerts@vantage.test');
    const parsed = await simpleParser(mail?.data ?? '');
    expect(parsed.subject).toBe('"Checkout <API>" is failing');
    expect(parsed.text).toContain('Error: connect ECONNREFUSED');
    expect(parsed.html).toContain('Checkout &lt;API&gt;');
    const [listed] = await bench.notifications(`?alertChannelId=${channel}`);
    expect(listed).toMatchObject({ status: 'SENT', responseStatus: 250 });
  });

  it('WEBHOOK: a Handlebars template with the variables, JSON-escaped, and account variables in headers', async () => {
    const broken = await bench.server.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'broken', url: services.url('/broken'), template: '{"a": {{#if x}}1}' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.attributes.errors).toEqual([
      expect.objectContaining({ field: 'config.template', message: expect.stringContaining('Handlebars') }),
    ]);
    const variable = await bench.server.api('POST', '/v1/variables', {
      key: 'HOOK_TOKEN',
      value: 'hook-token-789',
      secret: true,
    });
    expect(variable.status).toBe(201);
    const channel = await bench.channel('WEBHOOK', {
      name: 'templated',
      url: services.url('/templated'),
      method: 'PUT',
      headers: [{ key: 'Authorization', value: 'Bearer {{HOOK_TOKEN}}' }],
      queryParameters: [{ key: 'type', value: '{{ALERT_TYPE}}' }],
      template:
        '{"title": "{{ALERT_TITLE}}", "error": "{{CHECK_ERROR_MESSAGE}}", "day": "{{moment STARTED_AT "YYYY-MM-DD"}}", "tags": {{json TAGS}}{{#if GROUP_NAME}}, "group": "{{GROUP_NAME}}"{{/if}} }',
    });
    const check = await bench.check([channel], { name: 'Say "hi"', tags: ['a"b'] });
    await bench.session(check, 'FAILED');
    const [request] = requestsTo('/templated');
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe('/templated?type=ALERT_FAILURE');
    expect(request?.headers.authorization).toBe('Bearer hook-token-789');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      title: '"Say "hi"" is failing',
      error: 'connect ECONNREFUSED',
      day: new Date().toISOString().slice(0, 10),
      tags: ['a"b'],
    });
    const shown = await bench.server.api('GET', `/v1/alert-channels/${channel}`);
    expect(shown.body.config.headers).toEqual([{ key: 'Authorization', value: '*****', locked: false }]);
    const sentBack = await bench.server.api('PUT', `/v1/alert-channels/${channel}`, {
      config: shown.body.config,
    });
    expect(sentBack.status).toBe(200);
    const again = await bench.server.api('POST', `/v1/alert-channels/${channel}/test`);
    expect(again.body.outcome).toBe('SENT');
    expect(requestsTo('/templated')[1]?.headers.authorization).toBe('Bearer hook-token-789');
  });

  it('counts notifications by channel type and status in /metrics', async () => {
    const response = await fetch(`${bench.server.url}/metrics`);
    const text = await response.text();
    expect(text).toMatch(/vantage_alert_notifications\{channel_type="PAGERDUTY",status="SENT"\} 2/);
    expect(text).toMatch(/vantage_alert_notifications\{channel_type="EMAIL",status="SENT"\} 1/);
  });
});

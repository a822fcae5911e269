import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSmtpReceiver } from '../../support/receivers.js';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

describe.each(STORES)('subscribers of a status page, by e-mail (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let pageId: string;
  let serviceId: string;
  const slug = `mail-${store}`;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    bench = await AlertBench.start(store, 'subscribers', {
      alerting: { smtpUrl: smtp.url, emailFrom: 'Acme status <status@acme.test>' },
    });
    server = bench.server;
    serviceId = (await server.api('POST', '/v1/status-pages/services', { name: 'API' })).body.id;
    const page = await server.api('POST', '/v1/status-pages', {
      name: 'Acme',
      url: slug,
      cards: [{ name: 'Platform', services: [{ id: serviceId }] }],
    });
    pageId = page.body.id;
  });
  afterAll(async () => {
    await bench?.close();
    await smtp?.close();
  });

  /** Sends the outbox, and answers the mails to `address` so far, parsed. */
  const mailsTo = async (address: string) => {
    await server.server.runs.subscriberMailTick();
    const mine = smtp.mails.filter((m) => m.to.includes(address));
    return Promise.all(mine.map((m) => simpleParser(m.data)));
  };
  const linkIn = (text: string, kind: 'verify' | 'unsubscribe') => {
    const link = new RegExp(`http://127\\.0\\.0\\.1(/status/\\S+/${kind}\\?token=\\S+)`).exec(text)?.[1];
    expect(link).toBeDefined();
    return `${server.url}${link}`;
  };
  const subscribed = async (address: string) => {
    expect((await server.api('POST', `/v1/status-pages/${pageId}/subscriptions`, { address })).status).toBe(
      201,
    );
    const [verification] = await mailsTo(address);
    expect(verification?.subject).toBe('Confirm your subscription to Acme status');
    const answer = await fetch(linkIn(verification?.text ?? '', 'verify'));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('<h1>Subscribed</h1>');
  };
  const statusOf = async (address: string) =>
    (await server.api('GET', `/v1/status-pages/${pageId}/subscriptions`)).body.find(
      (s: { address: string }) => s.address === address,
    )?.status;

  it('sends a verification mail; its link makes the subscription VERIFIED; a wrong token does not', async () => {
    await server.api('POST', `/v1/status-pages/${pageId}/subscriptions`, { address: 'ann@example.test' });
    expect(await statusOf('ann@example.test')).toBe('PENDING');
    const [mail] = await mailsTo('ann@example.test');
    expect(mail?.from?.text).toContain('status@acme.test');
    const link = linkIn(mail?.text ?? '', 'verify');
    expect((await fetch(link.replace(/token=.*/, 'token=wrong'))).status).toBe(404);
    expect(await statusOf('ann@example.test')).toBe('PENDING');
    expect((await fetch(link)).status).toBe(200);
    expect(await statusOf('ann@example.test')).toBe('VERIFIED');
  });

  it('subscribes from the page’s form without a script, and does not tell who is subscribed', async () => {
    const form = (email: string) =>
      fetch(`${server.url}/status/${slug}/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }).toString(),
      });
    const first = await form('bob@example.test');
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('Check your inbox');
    const again = await form('bob@example.test');
    expect(again.status).toBe(200);
    expect(await mailsTo('bob@example.test')).toHaveLength(1);
    const bad = await form('not-an-address');
    expect(bad.status).toBe(400);
    const page = await (await fetch(`${server.url}/status/${slug}`)).text();
    expect(page).toContain(`<form method="post" action="/status/${slug}/subscriptions"`);
  });

  it('mails verified subscribers each incident and update that notifies them, with a one-click unsubscribe', async () => {
    await subscribed('carol@example.test');
    await server.api('POST', `/v1/status-pages/${pageId}/subscriptions`, { address: 'dan@example.test' }); // PENDING
    const opened = await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'API errors',
      description: 'Some requests fail.',
      notifySubscribers: true,
    });
    await server.api('POST', `/v1/status-pages/incidents/${opened.body.id}/updates`, {
      status: 'IDENTIFIED',
      description: 'A bad deploy; rolling back.',
    });
    await server.api('POST', `/v1/status-pages/incidents/${opened.body.id}/updates`, {
      status: 'RESOLVED',
      description: 'Rolled back.',
      notifySubscribers: true,
    });
    const mails = (await mailsTo('carol@example.test')).slice(1);
    expect(mails.map((m) => m.subject)).toEqual([
      '[Acme] API errors: Investigating',
      '[Acme] API errors: Resolved',
    ]);
    expect(mails[1]?.text).toContain('Resolved: Rolled back.');
    expect((await mailsTo('dan@example.test')).map((m) => m.subject)).toEqual([
      'Confirm your subscription to Acme status',
    ]);
    const link = linkIn(mails[1]?.text ?? '', 'unsubscribe');
    const raw = smtp.mails.filter((m) => m.to.includes('carol@example.test')).at(-1)?.data ?? '';
    expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(raw.replace(/\r?\n\s+/g, ' ')).toContain(
      `List-Unsubscribe: <${link.replace(server.url, 'http://127.0.0.1')}>`,
    );

    // What a mail program's one-click does (RFC 8058).
    const oneClick = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await statusOf('carol@example.test')).toBeUndefined();
    await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'More errors',
      description: 'Again.',
      notifySubscribers: true,
    });
    expect(await mailsTo('carol@example.test')).toHaveLength(3);
  });

  it('mails subscribers when a check’s triggerIncident opens and resolves an incident', async () => {
    await subscribed('erin@example.test');
    const check = await bench.check([], {
      triggerIncident: {
        serviceId,
        name: 'API is down',
        description: 'Requests fail.',
        notifySubscribers: true,
      },
    });
    await bench.session(check, 'FAILED');
    await bench.session(check, 'PASSED');
    const subjects = (await mailsTo('erin@example.test')).slice(1).map((m) => m.subject);
    expect(subjects).toEqual(['[Acme] API is down: Investigating', '[Acme] API is down: Resolved']);
  });

  it('mails subscribers an update to a maintenance over the checks of a page’s service', async () => {
    await subscribed('fay@example.test');
    await bench.check([], {
      activated: true,
      tags: ['database'],
      triggerIncident: { serviceId, name: 'DB', description: 'DB.', notifySubscribers: false },
    });
    const starts = new Date(bench.clock.now().getTime() + 86_400_000);
    const window = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Database upgrade',
      tags: ['database'],
      startsAt: starts.toISOString(),
      endsAt: new Date(starts.getTime() + 3_600_000).toISOString(),
    });
    const posted = await server.api(
      'POST',
      `/v1/maintenance-windows/${window.body.id}/maintenances/0/updates`,
      {
        description: 'The API is read-only for an hour.',
        notifySubscribers: true,
      },
    );
    expect(posted.status).toBe(201);
    const [, mail] = await mailsTo('fay@example.test');
    expect(mail?.subject).toBe('[Acme] Maintenance Database upgrade: Scheduled');
    expect(mail?.text).toContain('Scheduled: The API is read-only for an hour.');
    const missing = await server.api(
      'POST',
      `/v1/maintenance-windows/${window.body.id}/maintenances/x/updates`,
      {
        description: 'x',
      },
    );
    expect(missing.status).toBe(404);
  });
});

describe.each(STORES)('mail to subscribers on a running control plane (%s)', (store) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    // Its own loops on the system clock: the sweep that looks for due mail every 200 ms here (2 s by default).
    server = await startTestServer(store, {
      alerting: { smtpUrl: smtp.url, emailFrom: 'Acme status <status@acme.test>' },
      runs: { subscriberMailTickMs: 200 },
    });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it('goes out on its own: the sweep finds the verification mail due and sends it', async () => {
    const serviceId = (await server.api('POST', '/v1/status-pages/services', { name: 'API' })).body.id;
    const page = await server.api('POST', '/v1/status-pages', {
      name: 'Acme',
      url: `running-${store}`,
      cards: [{ name: 'Platform', services: [{ id: serviceId }] }],
    });
    const address = 'gil@example.test';
    const subscribed = await server.api('POST', `/v1/status-pages/${page.body.id}/subscriptions`, {
      address,
    });
    expect(subscribed.status).toBe(201);
    await vi.waitFor(() => expect(smtp.mails.filter((m) => m.to.includes(address))).toHaveLength(1), {
      timeout: 10_000,
    });
  });
});

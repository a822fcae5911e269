import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { type Api, apiOf, invalidFields, VALID_CHECKS } from './support.js';

describe.each(STORES)('alert channels, maintenance windows and status pages (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  describe('/v1/alert-channels', () => {
    it('creates a channel with the spec’s defaults, reads, lists, updates and deletes it', async () => {
      const created = await api.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'Ops hook', url: 'http://127.0.0.1:9/hook' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        type: 'WEBHOOK',
        config: {
          name: 'Ops hook',
          url: 'http://127.0.0.1:9/hook',
          method: 'POST',
          headers: [],
          queryParameters: [],
        },
        subscriptions: [],
        sendRecovery: true,
        sendFailure: true,
        sendDegraded: false,
        sslExpiry: false,
        sslExpiryThreshold: 30,
        autoSubscribe: false,
        created_at: expect.any(String),
        updated_at: null,
      });
      const id = created.body.id;
      expect((await api.get(`/v1/alert-channels/${id}`)).body).toEqual(created.body);
      expect((await api.get('/v1/alert-channels')).body).toContainEqual(created.body);
      const updated = await api.put(`/v1/alert-channels/${id}`, {
        sslExpiry: true,
        sslExpiryThreshold: 7,
        config: { method: 'PUT' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        sslExpiry: true,
        sslExpiryThreshold: 7,
        config: { name: 'Ops hook', url: 'http://127.0.0.1:9/hook', method: 'PUT' },
        updated_at: expect.any(String),
      });
      const retyped = await api.put(`/v1/alert-channels/${id}`, {
        type: 'SMS',
        config: { number: '+31600000000', name: 'On call' },
      });
      expect(retyped.body).toMatchObject({
        type: 'SMS',
        config: { number: '+31600000000', name: 'On call' },
      });
      expect((await api.delete(`/v1/alert-channels/${id}`)).status).toBe(204);
      expect((await api.get(`/v1/alert-channels/${id}`)).status).toBe(404);
      expect((await api.delete(`/v1/alert-channels/${id}`)).status).toBe(404);
    });

    it.each([
      ['sslExpiryThreshold 0', { sslExpiryThreshold: 0 }, ['sslExpiryThreshold']],
      ['sslExpiryThreshold 31', { sslExpiryThreshold: 31 }, ['sslExpiryThreshold']],
      ['sslExpiryThreshold not an integer', { sslExpiryThreshold: 1.5 }, ['sslExpiryThreshold']],
      ['a type outside the enum', { type: 'PIGEON' }, ['type']],
      ['an e-mail config without an address', { config: {} }, ['config.address']],
      ['an e-mail config with a bad address', { config: { address: 'nope' } }, ['config.address']],
      ['a field the channel does not have', { sendSpam: true }, ['sendSpam']],
    ])('refuses %s', async (_rule, fields, invalid) => {
      const reply = await api.post('/v1/alert-channels', {
        type: 'EMAIL',
        config: { address: 'a@localhost.test' },
        ...fields,
      });
      expect(reply.status).toBe(400);
      expect(invalidFields(reply)).toEqual(invalid);
    });

    it('accepts every channel type of the spec and sslExpiryThreshold 1 to 30', async () => {
      const configs: Record<string, object> = {
        EMAIL: { address: 'a@localhost.test' },
        SLACK: { url: 'http://127.0.0.1:9/slack', channel: '#ops' },
        SLACK_APP: { channelId: 'C123' },
        WEBHOOK: { name: 'hook', url: 'http://127.0.0.1:9/hook' },
        SMS: { number: '+31600000000', name: 'Me' },
        PAGERDUTY: { serviceKey: 'key', serviceName: 'svc' },
        OPSGENIE: { name: 'og', apiKey: 'k', region: 'EU', priority: 'P1' },
        CALL: { number: '+31600000000', name: 'Me' },
      };
      for (const [type, config] of Object.entries(configs)) {
        const reply = await api.post('/v1/alert-channels', {
          type,
          config,
          sslExpiryThreshold: type === 'SMS' ? 1 : 30,
        });
        expect(reply.status, type).toBe(201);
        await api.delete(`/v1/alert-channels/${reply.body.id}`);
      }
    });

    it('subscribes checks and groups, and shows them in the channel and in the check response', async () => {
      const check = (await api.post('/v1/checks/url?autoAssignAlerts=false', VALID_CHECKS.url)).body;
      const group = (await api.post('/v2/check-groups?autoAssignAlerts=false', { name: 'Subscribers' })).body;
      const channel = (
        await api.post('/v1/alert-channels', {
          type: 'SLACK',
          config: { url: 'http://127.0.0.1:9/slack' },
          subscriptions: [{ checkId: check.id }, { groupId: group.id, activated: false }],
        })
      ).body;
      expect(channel.subscriptions).toEqual([
        { checkId: check.id, groupId: null, activated: true },
        { checkId: null, groupId: group.id, activated: false },
      ]);
      expect((await api.get(`/v1/checks/${check.id}`)).body.alertChannels.slack).toEqual([
        { url: 'http://127.0.0.1:9/slack' },
      ]);

      const paused = await api.put(`/v1/alert-channels/${channel.id}/subscriptions`, {
        checkId: check.id,
        activated: false,
      });
      expect(paused.body).toEqual({ checkId: check.id, groupId: null, activated: false });
      expect((await api.get(`/v1/checks/${check.id}`)).body.alertChannels.slack).toEqual([]);

      const unknown = await api.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: 'nope' });
      expect(unknown.status).toBe(400);
      const both = await api.put(`/v1/alert-channels/${channel.id}/subscriptions`, {
        checkId: check.id,
        groupId: 1,
      });
      expect(both.status).toBe(400);

      const replaced = await api.put(`/v1/alert-channels/${channel.id}`, {
        subscriptions: [{ groupId: group.id }],
      });
      expect(replaced.body.subscriptions).toEqual([{ checkId: null, groupId: group.id, activated: true }]);
      const badSubscriber = await api.post('/v1/alert-channels', {
        type: 'SLACK',
        config: { url: 'http://127.0.0.1:9/slack' },
        subscriptions: [{ checkId: '00000000-0000-4000-8000-000000000000' }],
      });
      expect(badSubscriber.status).toBe(400);
      expect(invalidFields(badSubscriber)).toEqual(['subscriptions[0].checkId']);
    });

    it('subscribes new checks to an autoSubscribe channel even with autoAssignAlerts=false', async () => {
      const channel = (
        await api.post('/v1/alert-channels', {
          type: 'EMAIL',
          config: { address: 'auto@localhost.test' },
          autoSubscribe: true,
        })
      ).body;
      const check = (await api.post('/v1/checks/tcp?autoAssignAlerts=false', VALID_CHECKS.tcp)).body;
      expect(check.alertChannelSubscriptions).toEqual([{ alertChannelId: channel.id, activated: true }]);
      await api.delete(`/v1/alert-channels/${channel.id}`);
    });
  });

  describe('/v1/maintenance-windows', () => {
    const window = {
      name: 'Weekly patching',
      tags: ['db'],
      startsAt: '2030-01-06T02:00:00.000Z',
      endsAt: '2030-01-06T03:30:00.000Z',
      repeatInterval: 1,
      repeatUnit: 'WEEK',
      repeatEndsAt: '2030-03-01T00:00:00.000Z',
    };

    it('creates, reads, lists, updates and deletes a window', async () => {
      const created = await api.post('/v1/maintenance-windows', window);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        ...window,
        pauseRuns: true,
        silenceAlerts: true,
        created_at: expect.any(String),
        updated_at: null,
      });
      const id = created.body.id;
      expect((await api.get(`/v1/maintenance-windows/${id}`)).body).toEqual(created.body);
      expect((await api.get('/v1/maintenance-windows')).body).toContainEqual(created.body);
      const updated = await api.put(`/v1/maintenance-windows/${id}`, { name: 'Patching' });
      expect(updated.body).toMatchObject({ ...window, name: 'Patching', updated_at: expect.any(String) });
      expect((await api.delete(`/v1/maintenance-windows/${id}`)).status).toBe(204);
      expect((await api.get(`/v1/maintenance-windows/${id}`)).status).toBe(404);
    });

    it('serves each occurrence of a window as a Maintenance', async () => {
      const id = (await api.post('/v1/maintenance-windows', window)).body.id;
      const third = await api.get(`/v1/maintenance-windows/${id}/maintenances/2`);
      expect(third.status).toBe(200);
      expect(third.body).toEqual({
        id: '2',
        maintenanceWindowId: id,
        startsAt: '2030-01-20T02:00:00.000Z',
        endsAt: '2030-01-20T03:30:00.000Z',
        status: 'SCHEDULED',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        updates: [],
      });
      // Weekly from 6 January until 1 March: 6, 13, 20, 27 Jan, 3, 10, 17, 24 Feb.
      expect((await api.get(`/v1/maintenance-windows/${id}/maintenances/7`)).status).toBe(200);
      expect((await api.get(`/v1/maintenance-windows/${id}/maintenances/8`)).status).toBe(404);
      expect((await api.get(`/v1/maintenance-windows/${id}/maintenances/abc`)).status).toBe(404);
      const list = await api.get(
        `/v1/maintenance-windows/${id}/maintenances?from=2030-02-01T00:00:00Z&limit=2`,
      );
      expect(list.body.map((m: { startsAt: string }) => m.startsAt)).toEqual([
        '2030-02-03T02:00:00.000Z',
        '2030-02-10T02:00:00.000Z',
      ]);
    });

    it('numbers the months of a monthly window from its first day, keeping short months', async () => {
      const id = (
        await api.post('/v1/maintenance-windows', {
          name: 'Month end',
          startsAt: '2020-01-31T22:00:00Z',
          endsAt: '2020-01-31T23:00:00Z',
          repeatInterval: 1,
          repeatUnit: 'MONTH',
        })
      ).body.id;
      const feb = (await api.get(`/v1/maintenance-windows/${id}/maintenances/1`)).body;
      expect(feb).toMatchObject({ startsAt: '2020-02-29T22:00:00.000Z', status: 'COMPLETED' });
      const once = (
        await api.post('/v1/maintenance-windows', {
          name: 'Once',
          startsAt: '2020-01-01T00:00:00Z',
          endsAt: '2099-01-01T00:00:00Z',
        })
      ).body.id;
      expect((await api.get(`/v1/maintenance-windows/${once}/maintenances/0`)).body.status).toBe(
        'IN_PROGRESS',
      );
      expect((await api.get(`/v1/maintenance-windows/${once}/maintenances/1`)).status).toBe(404);
    });

    it('refuses an end before the start, half a repetition and bad dates', async () => {
      const reply = await api.post('/v1/maintenance-windows', {
        name: '',
        startsAt: '2030-01-01T02:00:00Z',
        endsAt: '2030-01-01T01:00:00Z',
        repeatUnit: 'DAY',
      });
      expect(invalidFields(reply).sort()).toEqual(['endsAt', 'name', 'repeatInterval']);
      const dates = await api.post('/v1/maintenance-windows', { name: 'x', startsAt: 'tomorrow', endsAt: 5 });
      expect(invalidFields(dates).sort()).toEqual(['endsAt', 'startsAt']);
    });
  });

  describe('/v1/status-pages', () => {
    it('creates a service, renames it with PUT, and deletes it', async () => {
      const created = await api.post('/v1/status-pages/services', { name: 'API' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'API',
        accountId: server.accountId,
        created_at: expect.any(String),
        updated_at: null,
      });
      const renamed = await api.put(`/v1/status-pages/services/${created.body.id}`, { name: 'Public API' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        id: created.body.id,
        name: 'Public API',
        updated_at: expect.any(String),
      });
      expect((await api.get(`/v1/status-pages/services/${created.body.id}`)).body).toEqual(renamed.body);
      expect(invalidFields(await api.put(`/v1/status-pages/services/${created.body.id}`, {}))).toEqual([
        'name',
      ]);
      expect((await api.delete(`/v1/status-pages/services/${created.body.id}`)).status).toBe(204);
      expect((await api.put(`/v1/status-pages/services/${created.body.id}`, { name: 'x' })).status).toBe(404);
    });

    it('creates a status page with cards of services and lists its subscriptions', async () => {
      const service = (await api.post('/v1/status-pages/services', { name: 'Checkout' })).body;
      const page = await api.post('/v1/status-pages', {
        name: 'Shop status',
        url: 'shop-status',
        cards: [{ name: 'Shop', services: [{ id: service.id }] }],
      });
      expect(page.status).toBe(201);
      expect(page.body).toMatchObject({
        id: expect.any(String),
        name: 'Shop status',
        url: 'shop-status',
        customDomain: null,
        cards: [{ name: 'Shop', services: [{ id: service.id, name: 'Checkout' }] }],
      });
      const id = page.body.id;
      expect((await api.get(`/v1/status-pages/${id}/subscriptions`)).body).toEqual([]);
      const subscribed = await api.post(`/v1/status-pages/${id}/subscriptions`, {
        address: 'fan@localhost.test',
      });
      expect(subscribed.status).toBe(201);
      const subscription = {
        id: expect.any(String),
        type: 'EMAIL',
        address: 'fan@localhost.test',
        status: 'PENDING',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      };
      expect(subscribed.body).toEqual(subscription);
      expect((await api.get(`/v1/status-pages/${id}/subscriptions`)).body).toEqual([subscription]);
      expect(
        (await api.post(`/v1/status-pages/${id}/subscriptions`, { address: 'fan@localhost.test' })).status,
      ).toBe(409);
      expect(
        invalidFields(await api.post(`/v1/status-pages/${id}/subscriptions`, { address: 'no' })),
      ).toEqual(['address']);
      expect((await api.get('/v1/status-pages')).body).toContainEqual(page.body);
      expect((await api.delete(`/v1/status-pages/${id}`)).status).toBe(204);
      expect((await api.get(`/v1/status-pages/${id}/subscriptions`)).status).toBe(404);
    });

    it('refuses a card with an unknown service and a url that is not a subdomain', async () => {
      const reply = await api.post('/v1/status-pages', {
        name: 'Bad',
        url: 'Not A Subdomain',
        cards: [{ name: 'x', services: [{ id: 'missing' }] }],
      });
      expect(invalidFields(reply)).toEqual(['url']);
      const unknown = await api.post('/v1/status-pages', {
        name: 'Bad',
        url: 'bad',
        cards: [{ name: 'x', services: [{ id: 'missing' }] }],
      });
      expect(invalidFields(unknown)).toEqual(['cards[0].services[0].id']);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import {
  type Api,
  apiOf,
  CHECK_TYPE_OF_PATH,
  createAccount,
  createPrivateLocation,
  invalidFields,
  VALID_CHECKS,
} from './support.js';

describe.each(STORES)('checks API (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  it.each(Object.keys(VALID_CHECKS) as (keyof typeof VALID_CHECKS)[])(
    'creates a %s check and returns the full check response',
    async (path) => {
      const created = await api.post(`/v1/checks/${path}`, VALID_CHECKS[path]);
      expect(created.status).toBe(201);
      const check = created.body;
      expect(check).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        checkType: CHECK_TYPE_OF_PATH[path],
        name: VALID_CHECKS[path].name,
        activated: true,
        muted: false,
        frequency: 10,
        privateLocations: [],
        groupId: null,
        created_at: expect.any(String),
        updated_at: null,
        alertChannels: { email: [], webhook: [], slack: [], sms: [] },
      });
      expect(Date.parse(check.created_at)).not.toBeNaN();
      const fetched = await api.get(`/v1/checks/${check.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(check);
    },
  );

  it('answers the spec’s URL and ICMP fields with their defaults', async () => {
    const url = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
    expect(url.request).toEqual({
      url: 'http://127.0.0.1:9/',
      method: 'GET',
      ipFamily: 'IPv4',
      followRedirects: true,
      skipSSL: false,
      assertions: [],
    });
    expect([url.degradedResponseTime, url.maxResponseTime]).toEqual([3000, 5000]);
    const icmp = (await api.post('/v1/checks/icmp', VALID_CHECKS.icmp)).body;
    expect(icmp).toMatchObject({
      checkType: 'ICMP',
      request: { hostname: '127.0.0.1', pingCount: 10, ipFamily: 'IPv4' },
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      degradedPacketLossThreshold: 10,
      maxPacketLossThreshold: 20,
    });
  });

  it('creates a check of the kind named by checkType with POST /v1/checks', async () => {
    const created = await api.post('/v1/checks', { ...VALID_CHECKS.tcp, checkType: 'TCP' });
    expect(created.status).toBe(201);
    expect(created.body.checkType).toBe('TCP');
    const missing = await api.post('/v1/checks', VALID_CHECKS.tcp);
    expect(missing.status).toBe(400);
    expect(invalidFields(missing)).toContain('checkType');
  });

  it('refuses a checkType that contradicts the path', async () => {
    const reply = await api.post('/v1/checks/url', { ...VALID_CHECKS.url, checkType: 'API' });
    expect(reply.status).toBe(400);
    expect(invalidFields(reply)).toEqual(['checkType']);
  });

  it('ignores an id in the create body and makes a new one', async () => {
    const first = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
    const copy = await api.post('/v1/checks/url', first);
    expect(copy.status).toBe(201);
    expect(copy.body.id).not.toBe(first.id);
  });

  describe('PUT /v1/checks/url/{id}', () => {
    it('merges the given fields over the stored check', async () => {
      const created = (
        await api.post('/v1/checks/url', {
          ...VALID_CHECKS.url,
          tags: ['web'],
          request: {
            url: 'http://127.0.0.1:9/a',
            assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
          },
        })
      ).body;
      const updated = await api.put(`/v1/checks/url/${created.id}`, {
        name: 'Renamed',
        request: { url: 'http://127.0.0.1:9/b' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        id: created.id,
        name: 'Renamed',
        tags: ['web'],
        request: { url: 'http://127.0.0.1:9/b', assertions: [{ source: 'STATUS_CODE', target: '200' }] },
        created_at: created.created_at,
      });
      expect(updated.body.updated_at).toEqual(expect.any(String));
      expect((await api.get(`/v1/checks/${created.id}`)).body).toEqual(updated.body);
    });

    it('takes an empty body (no field is required) and a fetched check sent back', async () => {
      const created = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
      expect((await api.put(`/v1/checks/url/${created.id}`, {})).status).toBe(200);
      const roundTrip = await api.put(`/v1/checks/url/${created.id}`, created);
      expect(roundTrip.status).toBe(200);
      expect(roundTrip.body.name).toBe(created.name);
    });

    it('validates the merged check and lists every problem', async () => {
      const created = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
      const reply = await api.put(`/v1/checks/url/${created.id}`, { frequency: 120, frequencyOffset: 3 });
      expect(reply.status).toBe(400);
      expect(invalidFields(reply)).toEqual(['frequencyOffset']);
      const many = await api.put(`/v1/checks/url/${created.id}`, {
        degradedResponseTime: 30001,
        description: 'x'.repeat(501),
        locations: ['nowhere-1'],
      });
      expect(many.status).toBe(400);
      expect(invalidFields(many).sort()).toEqual(['degradedResponseTime', 'description', 'locations[0]']);
      expect((await api.get(`/v1/checks/${created.id}`)).body.frequency).toBe(10);
    });

    it('answers 404 for a check that does not exist, 400 for a check of another kind', async () => {
      const missing = await api.put('/v1/checks/url/00000000-0000-4000-8000-000000000000', { name: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({
        statusCode: 404,
        error: 'Not Found',
        message: expect.any(String),
      });
      const tcp = (await api.post('/v1/checks/tcp', VALID_CHECKS.tcp)).body;
      const wrongKind = await api.put(`/v1/checks/url/${tcp.id}`, { name: 'x' });
      expect(wrongKind.status).toBe(400);
      expect(wrongKind.body.message).toContain('/v1/checks/tcp/');
    });
  });

  it('updates a check of any kind with PUT /v1/checks/{id}, and refuses a change of checkType', async () => {
    const dns = (await api.post('/v1/checks/dns', VALID_CHECKS.dns)).body;
    const updated = await api.put(`/v1/checks/${dns.id}`, {
      request: { recordType: 'AAAA' },
      activated: false,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      activated: false,
      request: { query: 'localhost', recordType: 'AAAA' },
    });
    const changed = await api.put(`/v1/checks/${dns.id}`, { checkType: 'TCP' });
    expect(changed.status).toBe(400);
    expect(invalidFields(changed)).toContain('checkType');
  });

  it('deletes a check: 204, then 404', async () => {
    const check = (await api.post('/v1/checks/api', VALID_CHECKS.api)).body;
    const deleted = await api.delete(`/v1/checks/${check.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    expect((await api.get(`/v1/checks/${check.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/checks/${check.id}`)).status).toBe(404);
  });

  describe('GET /v1/checks', () => {
    let group: number;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      group = (await api.post('/v2/check-groups', { name: 'Filters group' })).body.id;
      const make = async (key: string, body: object, path = 'api') => {
        ids[key] = (await api.post(`/v1/checks/${path}`, { ...VALID_CHECKS.api, ...body })).body.id;
      };
      await make('alpha', { name: 'Filter Alpha', tags: ['filter', 'prod'] });
      await make('beta', { name: 'filter beta', tags: ['filter', 'staging'], activated: false });
      await make('gamma', { name: 'Filter Gamma', tags: ['filter', 'prod', 'eu'], groupId: group });
    });

    const namesOf = async (query: string) => {
      const reply = await api.get(`/v1/checks?${query}`);
      expect(reply.status).toBe(200);
      return (reply.body as { id: string }[]).map(
        (c) => Object.keys(ids).find((k) => ids[k] === c.id) ?? c.id,
      );
    };

    it('filters by tag (repeat it to require several), checkType, groupId, activated and name', async () => {
      expect(await namesOf('tag=filter')).toEqual(['alpha', 'beta', 'gamma']);
      expect(await namesOf('tag=filter&tag=prod')).toEqual(['alpha', 'gamma']);
      expect(await namesOf('tag=prod&tag=eu')).toEqual(['gamma']);
      expect(await namesOf(`groupId=${group}`)).toEqual(['gamma']);
      expect(await namesOf('tag=filter&activated=false')).toEqual(['beta']);
      expect(await namesOf('tag=filter&activated=true')).toEqual(['alpha', 'gamma']);
      expect(await namesOf('name=FILTER%20BETA')).toEqual(['beta']);
      expect(await namesOf('tag=filter&checkType=API')).toEqual(['alpha', 'beta', 'gamma']);
      expect(await namesOf('tag=filter&checkType=URL')).toEqual([]);
    });

    it('pages with page and limit, and bounds them', async () => {
      expect(await namesOf('tag=filter&limit=2')).toEqual(['alpha', 'beta']);
      expect(await namesOf('tag=filter&limit=2&page=2')).toEqual(['gamma']);
      for (const query of ['limit=0', 'limit=101', 'page=0', 'checkType=NOPE', 'activated=maybe']) {
        const reply = await api.get(`/v1/checks?${query}`);
        expect(reply.status, query).toBe(400);
        expect(invalidFields(reply)[0], query).toMatch(/^query\./);
      }
    });

    it('keeps the filtered columns in step with updates', async () => {
      await api.put(`/v1/checks/api/${ids.beta}`, {
        tags: ['filter', 'prod'],
        activated: true,
        groupId: group,
      });
      expect(await namesOf('tag=filter&tag=prod')).toEqual(['alpha', 'beta', 'gamma']);
      expect(await namesOf(`groupId=${group}&activated=true`)).toEqual(['beta', 'gamma']);
      await api.put(`/v1/checks/api/${ids.beta}`, { groupId: null, name: 'Renamed Delta' });
      expect(await namesOf(`groupId=${group}`)).toEqual(['gamma']);
      expect(await namesOf('name=delta')).toEqual(['beta']);
    });
  });

  describe('references', () => {
    it('refuses a groupId that is not a group of the account', async () => {
      const missing = await api.post('/v1/checks/url', { ...VALID_CHECKS.url, groupId: 999999 });
      expect(missing.status).toBe(400);
      expect(invalidFields(missing)).toEqual(['groupId']);
      const other = await createAccount(server);
      const foreignGroup = (await api.as(other.headers).post('/v2/check-groups', { name: 'Theirs' })).body.id;
      const foreign = await api.post('/v1/checks/url', { ...VALID_CHECKS.url, groupId: foreignGroup });
      expect(foreign.status).toBe(400);
      expect(invalidFields(foreign)).toEqual(['groupId']);
    });

    it('refuses privateLocations that are not slugs of the account’s private locations, naming them', async () => {
      await createPrivateLocation(server, 'office-basement');
      const ok = await api.post('/v1/checks/url', {
        ...VALID_CHECKS.url,
        privateLocations: ['office-basement'],
      });
      expect(ok.status).toBe(201);
      expect(ok.body.privateLocations).toEqual(['office-basement']);
      const other = await createAccount(server);
      await createPrivateLocation(server, 'their-site', other.accountId);
      const bad = await api.post('/v1/checks/url', {
        ...VALID_CHECKS.url,
        privateLocations: ['office-basement', 'their-site', 'nowhere'],
      });
      expect(bad.status).toBe(400);
      expect(invalidFields(bad)).toEqual(['privateLocations[1]', 'privateLocations[2]']);
      expect(bad.body.message).toContain('"their-site"');
      expect(bad.body.message).toContain('"nowhere"');
    });

    it('subscribes a new check to every alert channel unless autoAssignAlerts=false', async () => {
      const channel = (
        await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@localhost.test' } })
      ).body;
      const subscribed = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
      expect(subscribed.alertChannelSubscriptions).toEqual([{ alertChannelId: channel.id, activated: true }]);
      expect(subscribed.alertChannels.email).toEqual([{ address: 'ops@localhost.test' }]);
      const alone = (await api.post('/v1/checks/url?autoAssignAlerts=false', VALID_CHECKS.url)).body;
      expect(alone.alertChannelSubscriptions).toEqual([]);
      expect(alone.alertChannels.email).toEqual([]);
      const badChannel = await api.post('/v1/checks/url', {
        ...VALID_CHECKS.url,
        alertChannelSubscriptions: [{ alertChannelId: 987654, activated: true }],
      });
      expect(badChannel.status).toBe(400);
      expect(invalidFields(badChannel)).toEqual(['alertChannelSubscriptions[0].alertChannelId']);
      await api.delete(`/v1/alert-channels/${channel.id}`);
      expect((await api.get(`/v1/checks/${subscribed.id}`)).body.alertChannelSubscriptions).toEqual([]);
    });
  });

  it('never shows secret or locked variable values, and keeps them when a response is sent back', async () => {
    const created = (
      await api.post('/v1/checks/api', {
        ...VALID_CHECKS.api,
        environmentVariables: [
          { key: 'TOKEN', value: 's3cr3t', secret: true },
          { key: 'LOCKED', value: 'hidden', locked: true },
          { key: 'PLAIN', value: 'visible' },
        ],
      })
    ).body;
    expect(created.environmentVariables.map((v: { value: string }) => v.value)).toEqual([
      '*****',
      '*****',
      'visible',
    ]);
    expect(JSON.stringify(created)).not.toContain('s3cr3t');
    await api.put(`/v1/checks/api/${created.id}`, created);
    const [row] = await server.server.context.db.query<{
      definition: { environmentVariables: { value: string }[] };
    }>('SELECT definition FROM checks WHERE id = $1', [created.id]);
    expect(row?.definition.environmentVariables.map((v) => v.value)).toEqual(['s3cr3t', 'hidden', 'visible']);
  });

  it('gives a heartbeat check a ping token, and takes the check back with it', async () => {
    const created = (await api.post('/v1/checks/heartbeat', VALID_CHECKS.heartbeat)).body;
    expect(created.heartbeat).toMatchObject({ period: 1, periodUnit: 'days', pingToken: expect.any(String) });
    const updated = await api.put(`/v1/checks/heartbeat/${created.id}`, { ...created, name: 'Renamed beat' });
    expect(updated.status).toBe(200);
    expect(updated.body.heartbeat.pingToken).toBe(created.heartbeat.pingToken);
  });

  it('stores the validated check (with id) as the definition', async () => {
    const created = (await api.post('/v1/checks/tcp', { ...VALID_CHECKS.tcp, tags: ['db'] })).body;
    const [row] = await server.server.context.db.query<Record<string, unknown>>(
      'SELECT check_type, name, activated, tags, group_id, definition FROM checks WHERE id = $1',
      [created.id],
    );
    expect(row).toMatchObject({
      check_type: 'TCP',
      name: 'TCP check',
      activated: true,
      tags: ['db'],
      group_id: null,
    });
    expect(row?.definition).toMatchObject({
      id: created.id,
      checkType: 'TCP',
      request: { port: 9, data: '' },
    });
    expect(row?.definition).not.toHaveProperty('created_at');
    expect(row?.definition).not.toHaveProperty('alertChannels');
  });
});

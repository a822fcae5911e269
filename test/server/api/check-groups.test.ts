import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { type Api, apiOf, createPrivateLocation, invalidFields, VALID_CHECKS } from './support.js';

describe.each(STORES)('check groups API (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  it('creates a group with POST /v2/check-groups and applies the defaults', async () => {
    const created = await api.post('/v2/check-groups', {
      name: 'Backend',
      tags: ['api'],
      locations: ['eu-west-1'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(Number),
      name: 'Backend',
      activated: true,
      muted: false,
      tags: ['api'],
      locations: ['eu-west-1'],
      concurrency: 3,
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: null },
      alertChannelSubscriptions: [],
      privateLocations: [],
      runParallel: false,
      useGlobalAlertSettings: true,
      doubleCheck: true,
      environmentVariables: [],
      created_at: expect.any(String),
      updated_at: null,
    });
    expect((await api.get(`/v1/check-groups/${created.body.id}`)).body).toEqual(created.body);
  });

  it('takes every Checkly group setting', async () => {
    await createPrivateLocation(server, 'group-site');
    const body = {
      name: 'Everything',
      activated: false,
      muted: true,
      tags: ['a'],
      locations: ['us-east-1'],
      concurrency: 10,
      apiCheckDefaults: {
        url: 'http://127.0.0.1:9/base',
        headers: [{ key: 'X-Env', value: 'test' }],
        queryParameters: [{ key: 'q', value: '1' }],
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        basicAuth: { username: 'u', password: 'p' },
      },
      runtimeId: '2025.04',
      setupSnippetId: 1,
      tearDownSnippetId: null,
      localSetupScript: 'console.log(1)',
      localTearDownScript: null,
      privateLocations: ['group-site'],
      runParallel: true,
      retryStrategy: 'FALLBACK',
      useGlobalAlertSettings: false,
      doubleCheck: false,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } },
      environmentVariables: [{ key: 'GROUP_VAR', value: 'g' }],
    };
    const created = await api.post('/v2/check-groups', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, environmentVariables: [{ key: 'GROUP_VAR', value: 'g' }] });
    const withStrategy = await api.post('/v2/check-groups', {
      name: 'Retries',
      retryStrategy: { type: 'LINEAR', maxRetries: 3 },
    });
    expect(withStrategy.body.retryStrategy).toMatchObject({
      type: 'LINEAR',
      maxRetries: 3,
      baseBackoffSeconds: 60,
    });
  });

  it.each([
    ['concurrency below 1', { concurrency: 0 }, ['concurrency']],
    [
      'over 100 environmentVariables',
      { environmentVariables: Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: '' })) },
      ['environmentVariables'],
    ],
    ['a location outside the enum', { locations: ['atlantis-1'] }, ['locations[0]']],
    ['a runtimeId outside the enum', { runtimeId: '2020.01' }, ['runtimeId']],
    [
      'a retryStrategy that is neither FALLBACK nor a strategy',
      { retryStrategy: 'SOMETIMES' },
      ['retryStrategy'],
    ],
    [
      'a retry strategy over 10 retries',
      { retryStrategy: { type: 'LINEAR', maxRetries: 11 } },
      ['retryStrategy.maxRetries'],
    ],
    [
      'a retry strategy of an unknown type',
      { retryStrategy: { type: 'SOMETIMES', maxRetries: 11 } },
      ['retryStrategy', 'retryStrategy.type', 'retryStrategy.maxRetries'],
    ],
    ['an unknown private location', { privateLocations: ['nowhere'] }, ['privateLocations[0]']],
    ['an unknown field', { frequencyy: 5 }, ['frequencyy']],
  ])('refuses %s', async (_rule, fields, invalid) => {
    const reply = await api.post('/v2/check-groups', { name: 'Invalid', ...fields });
    expect(reply.status).toBe(400);
    expect(invalidFields(reply)).toEqual(invalid);
  });

  it('requires a name', async () => {
    const reply = await api.post('/v2/check-groups', {});
    expect(invalidFields(reply)).toEqual(['name']);
  });

  it('lists groups oldest first, with pages', async () => {
    const a = (await api.post('/v2/check-groups', { name: 'List A' })).body.id;
    const b = (await api.post('/v2/check-groups', { name: 'List B' })).body.id;
    const all = (await api.get('/v1/check-groups')).body as { id: number }[];
    expect(all.map((g) => g.id)).toEqual(expect.arrayContaining([a, b]));
    expect(all.findIndex((g) => g.id === a)).toBeLessThan(all.findIndex((g) => g.id === b));
    const page = await api.get('/v1/check-groups?limit=1&page=2');
    expect(page.body).toEqual([all[1]]);
  });

  it('updates a group by merging the given fields and validating the result', async () => {
    const group = (
      await api.post('/v2/check-groups', {
        name: 'Update me',
        apiCheckDefaults: { url: 'http://127.0.0.1:9' },
      })
    ).body;
    const updated = await api.put(`/v1/check-groups/${group.id}`, {
      concurrency: 5,
      apiCheckDefaults: { headers: [{ key: 'A', value: 'b' }] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Update me',
      concurrency: 5,
      apiCheckDefaults: { url: 'http://127.0.0.1:9', headers: [{ key: 'A', value: 'b', locked: false }] },
      updated_at: expect.any(String),
    });
    const invalid = await api.put(`/v1/check-groups/${group.id}`, { concurrency: 0, locations: ['x'] });
    expect(invalid.status).toBe(400);
    expect(invalidFields(invalid).sort()).toEqual(['concurrency', 'locations[0]']);
    expect((await api.put('/v1/check-groups/987654', { name: 'x' })).status).toBe(404);
  });

  it('lists the checks of a group, and refuses to delete a group while checks are in it', async () => {
    const group = (await api.post('/v2/check-groups', { name: 'Has checks' })).body;
    const check = (await api.post('/v1/checks/url', { ...VALID_CHECKS.url, groupId: group.id })).body;
    await api.post('/v1/checks/tcp', VALID_CHECKS.tcp);
    const checks = await api.get(`/v1/check-groups/${group.id}/checks`);
    expect(checks.status).toBe(200);
    expect(checks.body.map((c: { id: string }) => c.id)).toEqual([check.id]);
    expect(checks.body[0]).toMatchObject({
      groupId: group.id,
      checkType: 'URL',
      alertChannels: expect.any(Object),
    });

    const refused = await api.delete(`/v1/check-groups/${group.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      statusCode: 409,
      error: 'Conflict',
      attributes: { checkIds: [check.id] },
    });

    await api.put(`/v1/checks/url/${check.id}`, { groupId: null });
    expect((await api.delete(`/v1/check-groups/${group.id}`)).status).toBe(204);
    expect((await api.get(`/v1/check-groups/${group.id}`)).status).toBe(404);
    expect((await api.get(`/v1/check-groups/${group.id}/checks`)).status).toBe(404);
    expect((await api.delete(`/v1/check-groups/${group.id}`)).status).toBe(404);
  });

  it('subscribes a new group to the alert channels unless autoAssignAlerts=false', async () => {
    const channel = (
      await api.post('/v1/alert-channels', { type: 'SLACK', config: { url: 'http://127.0.0.1:9/hook' } })
    ).body;
    const subscribed = (await api.post('/v2/check-groups', { name: 'Alerted' })).body;
    expect(subscribed.alertChannelSubscriptions).toContainEqual({
      alertChannelId: channel.id,
      activated: true,
    });
    const quiet = (await api.post('/v2/check-groups?autoAssignAlerts=false', { name: 'Quiet' })).body;
    expect(quiet.alertChannelSubscriptions).toEqual([]);
    const subscriptions = (await api.get(`/v1/alert-channels/${channel.id}`)).body.subscriptions;
    expect(subscriptions).toContainEqual({ checkId: null, groupId: subscribed.id, activated: true });
    expect(subscriptions).not.toContainEqual(expect.objectContaining({ groupId: quiet.id }));
  });

  it('answers 400 to a group id that is not a number, 404 to one that does not exist', async () => {
    expect((await api.get('/v1/check-groups/abc')).status).toBe(400);
    expect((await api.get('/v1/check-groups/424242')).status).toBe(404);
  });

  it('still takes the deprecated POST /v1/check-groups', async () => {
    expect((await api.post('/v1/check-groups', { name: 'Old style' })).status).toBe(201);
  });
});

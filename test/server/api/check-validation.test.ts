import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { type Api, apiOf, invalidFields, VALID_CHECKS } from './support.js';

type Path = keyof typeof VALID_CHECKS;

/** Bodies that break one rule of the spec's tables, with the fields the 400 must name. */
const INVALID: [rule: string, path: Path, fields: Record<string, unknown>, invalid: string[]][] = [
  ['frequency outside the allowed set', 'url', { frequency: 3 }, ['frequency']],
  ['frequency not an integer', 'api', { frequency: 1.5 }, ['frequency']],
  [
    'frequency 0 on a URL check (sub-minute is API and TCP only)',
    'url',
    { frequency: 0, frequencyOffset: 10 },
    ['frequency'],
  ],
  ['frequency 0 without an offset', 'api', { frequency: 0 }, ['frequencyOffset']],
  ['rule 1: frequency 0 with offset 15', 'tcp', { frequency: 0, frequencyOffset: 15 }, ['frequencyOffset']],
  ['rule 2: frequency 5 with offset 51', 'api', { frequency: 5, frequencyOffset: 51 }, ['frequencyOffset']],
  [
    'rule 2: frequency 60 with offset 601',
    'api',
    { frequency: 60, frequencyOffset: 601 },
    ['frequencyOffset'],
  ],
  ['frequencyOffset below 1', 'api', { frequency: 10, frequencyOffset: 0 }, ['frequencyOffset']],
  ['rule 3: frequency 120 with offset 3', 'api', { frequency: 120, frequencyOffset: 3 }, ['frequencyOffset']],
  [
    'rule 3: frequency 1440 with offset 25',
    'url',
    { frequency: 1440, frequencyOffset: 25 },
    ['frequencyOffset'],
  ],
  ['description over 500 characters', 'url', { description: 'x'.repeat(501) }, ['description']],
  ['URL degradedResponseTime over 30000', 'url', { degradedResponseTime: 30001 }, ['degradedResponseTime']],
  ['URL maxResponseTime over 30000', 'url', { maxResponseTime: 30001 }, ['maxResponseTime']],
  ['URL response time below 0', 'url', { degradedResponseTime: -1 }, ['degradedResponseTime']],
  ['API maxResponseTime over 30000', 'api', { maxResponseTime: 30001 }, ['maxResponseTime']],
  ['TCP maxResponseTime over 30000', 'tcp', { maxResponseTime: 30001 }, ['maxResponseTime']],
  ['DNS maxResponseTime over 5000', 'dns', { maxResponseTime: 5001 }, ['maxResponseTime']],
  [
    'ICMP degradedResponseTime over 300000',
    'icmp',
    { degradedResponseTime: 300001 },
    ['degradedResponseTime'],
  ],
  ['ICMP maxResponseTime over 300000', 'icmp', { maxResponseTime: 300001 }, ['maxResponseTime']],
  ['ICMP response time below 0', 'icmp', { maxResponseTime: -5 }, ['maxResponseTime']],
  ['packet loss of 0', 'icmp', { degradedPacketLossThreshold: 0 }, ['degradedPacketLossThreshold']],
  ['packet loss over 100', 'icmp', { maxPacketLossThreshold: 101 }, ['maxPacketLossThreshold']],
  [
    'maxPacketLossThreshold below degradedPacketLossThreshold',
    'icmp',
    { degradedPacketLossThreshold: 50, maxPacketLossThreshold: 40 },
    ['maxPacketLossThreshold'],
  ],
  ['groupOrder below 0', 'url', { groupOrder: -1 }, ['groupOrder']],
  [
    'over 100 environmentVariables',
    'icmp',
    { environmentVariables: Array.from({ length: 101 }, (_, i) => ({ key: `V${i}`, value: 'x' })) },
    ['environmentVariables'],
  ],
  ['a location outside the enum', 'url', { locations: ['eu-west-1', 'mars-north-1'] }, ['locations[1]']],
  ['a runtimeId outside the enum', 'browser', { runtimeId: '2021.01' }, ['runtimeId']],
  ['a field the model does not know', 'url', { colour: 'blue' }, ['colour']],
  [
    'a request field the model does not know',
    'url',
    { request: { url: 'http://127.0.0.1:9/', verb: 'GET' } },
    ['request.verb'],
  ],
  [
    'an ICMP pingCount over 50',
    'icmp',
    { request: { hostname: '127.0.0.1', pingCount: 51 } },
    ['request.pingCount'],
  ],
  ['an empty name', 'tcp', { name: '' }, ['name']],
];

/** Bodies at the edges of the same rules, which must be accepted. */
const VALID: [rule: string, path: Path, fields: Record<string, unknown>][] = [
  ['every allowed frequency', 'api', {}],
  ['rule 1: frequency 0 with offsets 10, 20, 30', 'tcp', {}],
  ['rule 2: frequency 5 with offset 50', 'api', { frequency: 5, frequencyOffset: 50 }],
  ['rule 2: frequency 1 with offset 1', 'api', { frequency: 1, frequencyOffset: 1 }],
  ['rule 3: frequency 120 with offset 2', 'api', { frequency: 120, frequencyOffset: 2 }],
  ['rule 3: frequency 1440 with offset 24', 'url', { frequency: 1440, frequencyOffset: 24 }],
  ['description of 500 characters', 'url', { description: 'x'.repeat(500) }],
  ['URL response times 0 and 30000', 'url', { degradedResponseTime: 0, maxResponseTime: 30000 }],
  ['ICMP response times up to 300000', 'icmp', { degradedResponseTime: 300000, maxResponseTime: 300000 }],
  [
    'packet loss thresholds equal at 100',
    'icmp',
    { degradedPacketLossThreshold: 100, maxPacketLossThreshold: 100 },
  ],
  ['groupOrder 0', 'url', { groupOrder: 0 }],
  [
    '100 environmentVariables',
    'icmp',
    { environmentVariables: Array.from({ length: 100 }, (_, i) => ({ key: `V${i}`, value: 'x' })) },
  ],
  ['every location and runtime', 'browser', {}],
];

describe.each(STORES)('check validation (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  it.each(INVALID)('refuses %s with a 400 naming the field', async (_rule, path, fields, invalid) => {
    const reply = await api.post(`/v1/checks/${path}`, { ...VALID_CHECKS[path], ...fields });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
    expect(invalidFields(reply)).toEqual(invalid);
    for (const error of reply.body.attributes.errors) expect(error.message).toEqual(expect.any(String));
  });

  it.each(VALID)('accepts %s', async (rule, path, fields) => {
    const bodies: Record<string, unknown>[] = [fields];
    if (rule === 'every allowed frequency') {
      bodies.splice(
        0,
        1,
        ...[1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((frequency) => ({ frequency })),
      );
      bodies.push({ frequency: 0, frequencyOffset: 10 });
    }
    if (rule.startsWith('rule 1'))
      bodies.splice(0, 1, ...[10, 20, 30].map((o) => ({ frequency: 0, frequencyOffset: o })));
    if (rule === 'every location and runtime') {
      const locations = (await api.get('/v1/locations')).body.map((l: { region: string }) => l.region);
      expect(locations).toHaveLength(22);
      bodies.splice(0, 1, { locations });
      for (const runtimeId of ['2026.04', '2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10']) {
        bodies.push({ runtimeId });
      }
    }
    for (const body of bodies) {
      const reply = await api.post(`/v1/checks/${path}`, { ...VALID_CHECKS[path], ...body });
      expect(reply.status, `${JSON.stringify(body).slice(0, 80)}: ${reply.body.message}`).toBe(201);
    }
  });

  it('lists every invalid field of one body at once', async () => {
    const reply = await api.post('/v1/checks/icmp', {
      ...VALID_CHECKS.icmp,
      frequency: 3,
      description: 'x'.repeat(501),
      degradedResponseTime: 300001,
      degradedPacketLossThreshold: 0,
      groupOrder: -1,
      locations: ['moon-1'],
      runtimeId: '1999.01',
    });
    expect(reply.status).toBe(400);
    expect(invalidFields(reply).sort()).toEqual([
      'degradedPacketLossThreshold',
      'degradedResponseTime',
      'description',
      'frequency',
      'groupOrder',
      'locations[0]',
      'runtimeId',
    ]);
    for (const field of invalidFields(reply)) expect(reply.body.message).toContain(field);
  });

  it('requires name, request, heartbeat and script in the ICMP create body', async () => {
    const reply = await api.post('/v1/checks/icmp', {});
    expect(reply.status).toBe(400);
    expect(invalidFields(reply).sort()).toEqual(['heartbeat', 'name', 'request', 'script']);
    const partial = await api.post('/v1/checks/icmp', { name: 'x', request: { hostname: '127.0.0.1' } });
    expect(invalidFields(partial).sort()).toEqual(['heartbeat', 'script']);
  });

  it('applies the same rules to an update', async () => {
    const icmp = (await api.post('/v1/checks/icmp', VALID_CHECKS.icmp)).body;
    const reply = await api.put(`/v1/checks/icmp/${icmp.id}`, { maxPacketLossThreshold: 5 });
    expect(reply.status).toBe(400);
    expect(invalidFields(reply)).toEqual(['maxPacketLossThreshold']);
    expect(reply.body.attributes.errors[0].message).toContain('degradedPacketLossThreshold');
  });

  it('answers 400 to malformed JSON and to a body that is not an object', async () => {
    const malformed = await api.call('POST', '/v1/checks/url', '{"name": "x",');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.any(String),
    });
    const list = await api.post('/v1/checks/url', [1, 2]);
    expect(list.status).toBe(400);
    const text = await api.call('POST', '/v1/checks/url', 'name=x', { 'content-type': 'text/plain' });
    expect(text.status).toBeGreaterThanOrEqual(400);
    expect(text.status).toBeLessThan(500);
  });

  it('refuses a __proto__ or constructor.prototype key by name: the body is valid JSON', async () => {
    const proto = await api.call('POST', '/v1/checks/url', '{"name": "x", "__proto__": {"admin": true}}');
    expect(proto.status).toBe(400);
    expect(proto.body.message).toBe(
      'Invalid request body: the key "__proto__" is refused (it could change the prototype of objects)',
    );
    expect(proto.body.attributes.errors).toEqual([
      { field: '(body)', message: 'must not hold the key "__proto__"' },
    ]);
    const poisoned = await api.call(
      'POST',
      '/v1/checks/url',
      '{"name": "x", "constructor": {"prototype": {"admin": true}}}',
    );
    expect(poisoned.body.message).toContain('the key "constructor.prototype" is refused');
    const malformed = await api.call('POST', '/v1/checks/url', '{"name": "x",');
    expect(malformed.body.message).toMatch(/^Invalid request body: not valid JSON \(.+\)$/);
  });

  it('deletes with Content-Type: application/json and no body, as many clients send it', async () => {
    const created = await api.post('/v1/checks/url', { ...VALID_CHECKS.url, name: 'to delete' });
    expect(created.status).toBe(201);
    const reply = await api.call('DELETE', `/v1/checks/${created.body.id}`, undefined, {
      'content-type': 'application/json',
    });
    expect(reply.status).toBe(204);
    expect((await api.get(`/v1/checks/${created.body.id}`)).status).toBe(404);
  });

  it('states the rule in the same words as `vantage run`', async () => {
    const reply = await api.post('/v1/checks/url', {
      ...VALID_CHECKS.url,
      frequency: 120,
      frequencyOffset: 3,
    });
    expect(reply.body.attributes.errors).toEqual([
      { field: 'frequencyOffset', message: 'must be between 1 and 2 when frequency is 120' },
    ]);
  });
});

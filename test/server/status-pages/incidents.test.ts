import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

describe.each(STORES)('incidents of status-page services (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;

  beforeAll(async () => {
    bench = await AlertBench.start(store, 'incidents');
    server = bench.server;
  });
  afterAll(async () => bench?.close());

  const service = async (name = 'Checkout') => {
    const created = await server.api('POST', '/v1/status-pages/services', { name });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const incidentsOf = async (serviceId: string) =>
    (await server.api('GET', `/v1/status-pages/incidents?serviceId=${serviceId}`)).body;

  it('opens, edits, updates, resolves, reopens and deletes an incident through the API', async () => {
    const serviceId = await service();
    const created = await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'Payments fail',
      description: 'Card payments fail for some customers.',
      severity: 'CRITICAL',
      notifySubscribers: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      serviceId,
      name: 'Payments fail',
      severity: 'CRITICAL',
      status: 'INVESTIGATING',
      checkId: null,
      notifySubscribers: true,
      resolved_at: null,
      updates: [{ status: 'INVESTIGATING', description: 'Card payments fail for some customers.' }],
    });

    const edited = await server.api('PUT', `/v1/status-pages/incidents/${id}`, { severity: 'MAJOR' });
    expect(edited.body).toMatchObject({ severity: 'MAJOR', name: 'Payments fail' });
    const identified = await server.api('POST', `/v1/status-pages/incidents/${id}/updates`, {
      status: 'IDENTIFIED',
      description: 'A certificate of the card processor expired.',
    });
    expect(identified.status).toBe(201);
    expect(identified.body.status).toBe('IDENTIFIED');
    const resolved = await server.api('POST', `/v1/status-pages/incidents/${id}/updates`, {
      status: 'RESOLVED',
      description: 'The certificate was renewed.',
      notifySubscribers: true,
    });
    expect(resolved.body.status).toBe('RESOLVED');
    expect(Date.parse(resolved.body.resolved_at)).not.toBeNaN();
    expect(resolved.body.updates.map((u: { status: string }) => u.status)).toEqual([
      'INVESTIGATING',
      'IDENTIFIED',
      'RESOLVED',
    ]);
    expect((await server.api('GET', '/v1/status-pages/incidents?state=open')).body).not.toContainEqual(
      expect.objectContaining({ id }),
    );
    expect((await server.api('GET', '/v1/status-pages/incidents?state=resolved')).body).toContainEqual(
      expect.objectContaining({ id }),
    );
    const reopened = await server.api('POST', `/v1/status-pages/incidents/${id}/updates`, {
      status: 'MONITORING',
      description: 'Some payments still fail.',
    });
    expect(reopened.body).toMatchObject({ status: 'MONITORING', resolved_at: null });

    expect((await server.api('DELETE', `/v1/status-pages/incidents/${id}`)).status).toBe(204);
    expect((await server.api('GET', `/v1/status-pages/incidents/${id}`)).status).toBe(404);
  });

  it('refuses an unknown service, status or severity, naming the field; answers 404 for an unknown incident', async () => {
    const unknown = await server.api('POST', '/v1/status-pages/incidents', {
      serviceId: randomUUID(),
      name: 'x',
      description: 'y',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('serviceId');
    const serviceId = await service();
    const bad = await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'x',
      description: 'y',
      severity: 'HUGE',
      status: 'DONE',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('severity');
    expect(bad.body.message).toContain('status');
    expect(
      (
        await server.api('POST', `/v1/status-pages/incidents/${randomUUID()}/updates`, {
          status: 'RESOLVED',
          description: 'z',
        })
      ).status,
    ).toBe(404);
  });

  it('removes the incidents of a deleted service', async () => {
    const serviceId = await service('Search');
    const created = await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'Slow search',
      description: 'Searches take seconds.',
    });
    expect((await server.api('DELETE', `/v1/status-pages/services/${serviceId}`)).status).toBe(204);
    expect((await server.api('GET', `/v1/status-pages/incidents/${created.body.id}`)).status).toBe(404);
  });

  it('opens an incident when a check with triggerIncident sends its failure alert, once, and resolves it on recovery', async () => {
    const serviceId = await service('API');
    const check = await bench.check([], {
      triggerIncident: {
        serviceId,
        name: 'API is down',
        description: 'Requests to the API fail.',
        notifySubscribers: true,
      },
    });
    await bench.session(check, 'PASSED');
    expect(await incidentsOf(serviceId)).toEqual([]);
    await bench.session(check, 'FAILED');
    const [opened] = await incidentsOf(serviceId);
    expect(opened).toMatchObject({
      name: 'API is down',
      description: 'Requests to the API fail.',
      status: 'INVESTIGATING',
      severity: 'MAJOR',
      checkId: check,
      notifySubscribers: true,
    });
    await bench.session(check, 'FAILED');
    expect(await incidentsOf(serviceId)).toHaveLength(1);

    await bench.session(check, 'PASSED');
    const [resolved] = await incidentsOf(serviceId);
    expect(resolved.status).toBe('RESOLVED');
    expect(resolved.updates.at(-1)).toMatchObject({
      status: 'RESOLVED',
      description: expect.stringContaining('has recovered'),
      notifySubscribers: true,
    });

    await bench.session(check, 'FAILED');
    const listed = await incidentsOf(serviceId);
    expect(listed.map((i: { status: string }) => i.status)).toEqual(['INVESTIGATING', 'RESOLVED']);
  });

  it('opens nothing for a muted check, whose failure sends no alert', async () => {
    const serviceId = await service('Muted');
    const check = await bench.check([], {
      muted: true,
      triggerIncident: { serviceId, name: 'Down', description: 'Down.', notifySubscribers: false },
    });
    await bench.session(check, 'FAILED');
    expect(await incidentsOf(serviceId)).toEqual([]);
  });
});

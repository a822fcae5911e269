import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { type Api, apiOf, VALID_CHECKS } from './support.js';

describe.each(STORES)('triggers, heartbeats and error groups (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  describe('/v1/triggers', () => {
    it('creates, reads and deletes the trigger of a check', async () => {
      const check = (await api.post('/v1/checks/api', VALID_CHECKS.api)).body;
      expect((await api.get(`/v1/triggers/checks/${check.id}`)).status).toBe(404);
      const created = await api.post(`/v1/triggers/checks/${check.id}`);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        id: expect.any(Number),
        token: expect.any(String),
        checkId: check.id,
      });
      expect(created.body.url).toBe(`http://127.0.0.1/checks/${check.id}/trigger/${created.body.token}`);
      expect((await api.get(`/v1/triggers/checks/${check.id}`)).body).toEqual(created.body);
      expect((await api.post(`/v1/triggers/checks/${check.id}`)).body).toEqual(created.body);
      const deleted = await api.delete(`/v1/triggers/checks/${check.id}`);
      expect(deleted.status).toBe(204);
      expect((await api.get(`/v1/triggers/checks/${check.id}`)).status).toBe(404);
      expect((await api.delete(`/v1/triggers/checks/${check.id}`)).status).toBe(404);
      const again = (await api.post(`/v1/triggers/checks/${check.id}`)).body;
      expect(again.token).not.toBe(created.body.token);
    });

    it('creates, reads and deletes the trigger of a check group', async () => {
      const group = (await api.post('/v2/check-groups', { name: 'Triggered' })).body;
      const created = await api.post(`/v1/triggers/check-groups/${group.id}`);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        id: expect.any(Number),
        token: expect.any(String),
        groupId: group.id,
      });
      expect(created.body.url).toContain(`/check-groups/${group.id}/trigger/`);
      expect((await api.get(`/v1/triggers/check-groups/${group.id}`)).body).toEqual(created.body);
      expect((await api.delete(`/v1/triggers/check-groups/${group.id}`)).status).toBe(204);
      expect((await api.get(`/v1/triggers/check-groups/${group.id}`)).status).toBe(404);
    });

    it('starts a check session when its URL is called, without an API key', async () => {
      const check = (await api.post('/v1/checks/api', VALID_CHECKS.api)).body;
      const trigger = (await api.post(`/v1/triggers/checks/${check.id}`)).body;
      const path = new URL(trigger.url).pathname;
      const anonymous = api.as({});
      const started = await anonymous.post(path);
      expect(started.status).toBe(200);
      expect(started.body.checkSessions).toHaveLength(1);
      expect(started.body.checkSessions[0]).toMatchObject({ checkId: check.id, runSource: 'TRIGGER_RECORD' });
      expect((await anonymous.get(path)).status).toBe(200);
      expect((await anonymous.get(path.replace(trigger.token, 'wrong-token'))).status).toBe(404);

      const group = (await api.post('/v2/check-groups', { name: 'Run all' })).body;
      const groupTrigger = (await api.post(`/v1/triggers/check-groups/${group.id}`)).body;
      const groupPath = new URL(groupTrigger.url).pathname;
      expect((await anonymous.post(groupPath)).status).toBe(404);
      const member = (await api.post('/v1/checks/tcp', { ...VALID_CHECKS.tcp, groupId: group.id })).body;
      await api.post('/v1/checks/tcp', { ...VALID_CHECKS.tcp, groupId: group.id, activated: false });
      const groupRun = await anonymous.post(groupPath);
      expect(groupRun.body.checkSessions.map((s: { checkId: string }) => s.checkId)).toEqual([member.id]);
      await api.delete(`/v1/triggers/check-groups/${group.id}`);
      expect((await anonymous.post(groupPath)).status).toBe(404);
    });

    it('answers 404 for checks and groups that do not exist, and drops a check’s trigger with the check', async () => {
      expect((await api.post(`/v1/triggers/checks/${randomUUID()}`)).status).toBe(404);
      expect((await api.post('/v1/triggers/check-groups/999999')).status).toBe(404);
      const check = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
      await api.post(`/v1/triggers/checks/${check.id}`);
      await api.delete(`/v1/checks/${check.id}`);
      const [row] = await server.server.context.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM resources WHERE kind = 'check-trigger' AND id = $1`,
        [check.id],
      );
      expect(row?.n).toBe(0);
    });
  });

  describe('heartbeats', () => {
    it('records pings to /heartbeats/{token} as events, readable with stats', async () => {
      const check = (await api.post('/v1/checks/heartbeat', VALID_CHECKS.heartbeat)).body;
      const token = check.heartbeat.pingToken;
      const anonymous = api.as({});
      expect(
        (await anonymous.call('GET', `/heartbeats/${token}`, undefined, { 'user-agent': 'cron/1.0' })).body,
      ).toEqual({
        status: 'OK',
      });
      expect((await anonymous.post(`/heartbeats/${token}`)).status).toBe(200);
      expect((await anonymous.post(`/heartbeats/${token}/fail`)).status).toBe(200);

      const events = (await api.get(`/v1/checks/heartbeats/${check.id}/events`)).body;
      expect(events.map((e: { state: string; source: string }) => [e.state, e.source])).toEqual([
        ['FAILING', 'HTTP POST from 127.0.0.1'],
        ['PASSING', 'HTTP POST from 127.0.0.1'],
        ['PASSING', 'HTTP GET from 127.0.0.1'],
      ]);
      const first = events[2];
      const reply = await api.get(`/v1/checks/heartbeats/${check.id}/events/${first.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        event: {
          id: first.id,
          state: 'PASSING',
          timestamp: expect.any(String),
          source: 'HTTP GET from 127.0.0.1',
          userAgent: 'cron/1.0',
          timing: 'ON_TIME',
          body: null,
          bodyTruncated: false,
          checkSessionId: expect.any(String),
        },
        stats: {
          last24Hours: {
            successRatio: { previousPeriod: 0, currentPeriod: 66.67 },
            totalEntitiesCurrentPeriod: 3,
          },
          last7Days: {
            successRatio: { previousPeriod: 0, currentPeriod: 66.67 },
            totalEntitiesCurrentPeriod: 3,
          },
        },
      });
      expect(Date.parse(reply.body.event.timestamp)).not.toBeNaN();
    });

    it('answers 404 to an unknown token, event or non-heartbeat check, and forgets the token with the check', async () => {
      const check = (await api.post('/v1/checks/heartbeat', VALID_CHECKS.heartbeat)).body;
      const url = (await api.post('/v1/checks/url', VALID_CHECKS.url)).body;
      expect((await api.get(`/v1/checks/heartbeats/${check.id}/events/${randomUUID()}`)).status).toBe(404);
      expect((await api.get(`/v1/checks/heartbeats/${url.id}/events`)).status).toBe(404);
      expect((await api.get('/heartbeats/not-a-token')).status).toBe(404);
      await api.delete(`/v1/checks/${check.id}`);
      expect((await api.get(`/heartbeats/${check.heartbeat.pingToken}`)).status).toBe(404);
    });
  });

  describe('/v1/error-groups', () => {
    it('reads the error groups of the account, filtered by check', async () => {
      const db = server.server.context.db;
      const [a, b] = [randomUUID(), randomUUID()];
      const insert = (id: string, checkId: string, lastSeen: string) =>
        db.query(
          `INSERT INTO error_groups (id, account_id, check_id, error_hash, raw_error_message, cleaned_error_message, first_seen, last_seen)
           VALUES ($1, $2, $3, $4, 'connect ECONNREFUSED 127.0.0.1:9 after 12 ms', 'connect ECONNREFUSED <ip>:<n> after <n> ms', $5, $5)`,
          [id, server.accountId, checkId, `hash-${id}`, lastSeen],
        );
      await insert(a, 'check-a', '2030-01-01T00:00:00Z');
      await insert(b, 'check-b', '2030-01-02T00:00:00Z');

      const one = await api.get(`/v1/error-groups/${a}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        id: a,
        checkId: 'check-a',
        errorHash: `hash-${a}`,
        rawErrorMessage: 'connect ECONNREFUSED 127.0.0.1:9 after 12 ms',
        cleanedErrorMessage: 'connect ECONNREFUSED <ip>:<n> after <n> ms',
        firstSeen: '2030-01-01T00:00:00.000Z',
        lastSeen: '2030-01-01T00:00:00.000Z',
        archivedUntilNextEvent: false,
      });
      // Newest first; after them, the group of the failure a heartbeat test above reported.
      const listed = (await api.get('/v1/error-groups')).body.map((g: { id: string }) => g.id);
      expect(listed.slice(0, 2)).toEqual([b, a]);
      expect((await api.get('/v1/error-groups?checkId=check-a')).body).toEqual([one.body]);
      expect(
        (await api.get('/v1/checks/check-b/error-groups')).body.map((g: { id: string }) => g.id),
      ).toEqual([b]);
      expect((await api.get(`/v1/error-groups/${randomUUID()}`)).status).toBe(404);

      const archived = await api.call('PATCH', `/v1/error-groups/${a}`, { archivedUntilNextEvent: true });
      expect(archived.body.archivedUntilNextEvent).toBe(true);
    });
  });
});

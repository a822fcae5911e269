import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES, PROTOCOL_LIMITS, PROTOCOL_VERSION } from '../../../src/protocol/index.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  TEST_PUBLIC_URL,
  TestClock,
  type TestServer,
  until,
} from '../../support/server.js';
import { selfSignedCertificate } from '../../support/tls.js';
import { apiResult, TestAgent } from './agent-client.js';

describe.each(STORES)('the agent gateway (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();
  let n = 0;
  const agents: TestAgent[] = [];

  beforeAll(async () => {
    server = await startTestServer(store, {
      runs: { background: false, clock: clock.now, dispatchPollMs: 100, heartbeatIntervalMs: 500 },
    });
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await server?.close();
  });

  /** A fresh location with a check in it (deactivated: it runs only when triggered). */
  async function setup(fields: Record<string, unknown> = {}) {
    n += 1;
    const location = await createLocation(server, `gw-${n}`);
    const checkId = await createApiCheck(server, {
      privateLocations: [location.slugName],
      activated: false,
      ...fields,
    });
    return { location, checkId };
  }
  async function connect(key: string, options: Parameters<typeof TestAgent.connect>[3] = {}) {
    const agent = await TestAgent.connect(server.url, key, server.accountId, options);
    agents.push(agent);
    return agent;
  }
  /** A fresh location whose agent `agentId` leased the one run of a triggered check. */
  async function leasedRun(agentId: string) {
    const { location, checkId } = await setup();
    const agent = await connect(location.key, { agentId });
    agent.credit(1);
    const sessionId = await trigger(checkId);
    return { location, agent, sessionId, run: await agent.next('run') };
  }
  async function trigger(checkId: string): Promise<string> {
    const { status, body } = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    expect(status).toBe(201);
    return body.checkSessions[0].checkSessionId;
  }

  it('refuses an upgrade without a valid private-location key with HTTP errors before any message', async () => {
    const { location } = await setup();
    await expect(
      TestAgent.open(server.url, 'pl_nope.gw.aaaaaaaaaaaaaaaaaaaa', server.accountId),
    ).rejects.toThrow('HTTP 401');
    await expect(TestAgent.open(server.url, location.key, 'another-account')).rejects.toThrow('HTTP 403');
    // A user key opens the API, never the gateway.
    const userKey = String(server.headers.authorization).replace('Bearer ', '');
    await expect(TestAgent.open(server.url, userKey, server.accountId)).rejects.toThrow('HTTP 403');
    // Without an upgrade the route says how to use it.
    const plain = await fetch(`${server.url}/v1/agent/connect`, {
      headers: { authorization: `Bearer ${location.key}`, 'x-service-account': server.accountId },
    });
    expect(plain.status).toBe(426);
  });

  it('refuses a protocol version it does not speak', async () => {
    const { location } = await setup();
    const agent = await TestAgent.open(server.url, location.key, server.accountId);
    agents.push(agent);
    agent.hello({ protocolVersion: 99 });
    expect(await agent.next('error')).toMatchObject({ code: 'UNSUPPORTED_PROTOCOL', fatal: true });
    expect(await agent.closed()).toBe(CLOSE_CODES.unsupportedProtocol);
  });

  it('speaks each protocol version with its own fields: engines only from version 2 on', async () => {
    const { location } = await setup();
    const hello = async (options: Parameters<TestAgent['hello']>[0]) => {
      const agent = await TestAgent.open(server.url, location.key, server.accountId);
      agents.push(agent);
      agent.hello(options);
      return agent;
    };
    const v1 = await hello({ protocolVersion: 1 });
    expect(await v1.next('welcome')).toMatchObject({ protocolVersion: 1 });
    const v2 = await hello({ protocolVersion: 2 });
    expect(await v2.next('welcome')).toMatchObject({ protocolVersion: 2 });
    const v3 = await hello({ protocolVersion: 3 });
    expect(await v3.next('welcome')).toMatchObject({ protocolVersion: 3 });
    const v1WithEngines = await hello({ protocolVersion: 1, engines: ['node22'] });
    expect(await v1WithEngines.next('error')).toMatchObject({
      code: 'BAD_MESSAGE',
      message: expect.stringContaining('engines: is not in protocol version 1'),
    });
    // A newer agent's hello may hold fields this server does not know: the version is refused, not the message.
    const future = await TestAgent.open(server.url, location.key, server.accountId);
    agents.push(future);
    future.send({ type: 'hello', protocolVersion: PROTOCOL_VERSION + 1, somethingNew: true });
    expect(await future.next('error')).toMatchObject({ code: 'UNSUPPORTED_PROTOCOL' });
    expect(await future.closed()).toBe(CLOSE_CODES.unsupportedProtocol);
  });

  it('welcomes an agent and shows it on its private location', async () => {
    const { location } = await setup();
    const agent = await TestAgent.open(server.url, location.key, server.accountId, 'presence-agent');
    agents.push(agent);
    agent.hello();
    expect(await agent.next('welcome')).toEqual({
      type: 'welcome',
      protocolVersion: PROTOCOL_VERSION,
      location: location.slugName,
      heartbeatIntervalMs: 500,
      leaseTtlMs: PROTOCOL_LIMITS.leaseTtlMs,
    });
    const shown = await server.api('GET', `/v1/private-locations/${location.id}`);
    expect(shown.body).toMatchObject({
      agentCount: 1,
      agents: { count: 1, connected: true, versions: ['1.2.3'] },
    });
    expect(shown.body.agents.lastSeen).toBe(clock.now().toISOString());
    agent.close();
    const after = await until(
      () => server.api('GET', `/v1/private-locations/${location.id}`),
      (r) => r.body.agents.connected === false,
    );
    expect(after.body.agents).toMatchObject({ count: 0, connected: false, versions: [] });
  });

  it('lists each agent of a location: its connection, the runs it holds and how many it takes', async () => {
    const { location, checkId } = await setup();
    const connectedAt = clock.now().toISOString();
    const agent = await connect(location.key, { agentId: 'lister-1' });
    const first = await server.api('GET', `/v1/private-locations/${location.id}/agents`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual([
      {
        agentId: 'lister-1',
        hostname: 'test-host',
        agentVersion: '1.2.3',
        platform: expect.any(String),
        nodeVersion: expect.any(String),
        state: 'CONNECTED',
        connectedSince: connectedAt,
        firstSeen: connectedAt,
        lastSeen: connectedAt,
        keyId: location.keyId,
        runsInFlight: { light: 0, browser: 0 },
        capacity: { light: 4, browser: 1 },
        engines: expect.any(Array),
        runtimes: expect.any(Array),
      },
    ]);
    await trigger(checkId);
    agent.credit(1);
    await agent.next('run');
    const busy = await server.api('GET', `/v1/private-locations/${location.id}/agents`);
    expect(busy.body[0].runsInFlight).toEqual({ light: 1, browser: 0 });

    // A second agent that hung up is listed after the connected one.
    clock.advance(1_000);
    const other = await connect(location.key, { agentId: 'lister-0' });
    other.close();
    const listed = await until(
      () => server.api('GET', `/v1/private-locations/${location.id}/agents`),
      (r) => r.body.some((a: { state: string }) => a.state === 'DISCONNECTED'),
    );
    expect(listed.body.map((a: { agentId: string; state: string }) => [a.agentId, a.state])).toEqual([
      ['lister-1', 'CONNECTED'],
      ['lister-0', 'DISCONNECTED'],
    ]);
    expect(listed.body[1].connectedSince).toBe(clock.now().toISOString());

    // Silent for longer than a lease lasts, with its connection not closed: unresponsive (a dead replica's agent).
    clock.advance(PROTOCOL_LIMITS.leaseTtlMs + 1_000);
    const silent = await server.api('GET', `/v1/private-locations/${location.id}/agents`);
    expect(silent.body.map((a: { agentId: string; state: string }) => [a.agentId, a.state])).toEqual([
      ['lister-1', 'UNRESPONSIVE'],
      ['lister-0', 'DISCONNECTED'],
    ]);

    expect((await server.api('GET', '/v1/private-locations/nope/agents')).status).toBe(404);
    const described = (await server.api('GET', '/openapi.json')).body.paths[
      '/v1/private-locations/{id}/agents'
    ];
    expect(
      Object.keys(described.get.responses['200'].content['application/json'].schema.items.properties),
    ).toContain('runsInFlight');
  });

  it('sends queued runs as credit allows, and only kinds the agent can run', async () => {
    const { location, checkId } = await setup();
    const tcpCheck = await server.api('POST', '/v1/checks', {
      checkType: 'TCP',
      name: 'Port',
      activated: false,
      privateLocations: [location.slugName],
      request: { hostname: '127.0.0.1', port: 9 },
    });
    expect(tcpCheck.status).toBe(201);
    const agent = await connect(location.key, { unavailable: ['TCP'] });
    await trigger(tcpCheck.body.id);
    const first = await trigger(checkId);
    clock.advance(1);
    const second = await trigger(checkId);
    agent.credit(1);
    const run = await agent.next('run');
    expect(run).toMatchObject({
      checkSessionId: first,
      attempt: 1,
      runSource: 'TRIGGER_API',
      runLocation: location.slugName,
    });
    expect(run.check).toMatchObject({ id: checkId, checkType: 'API' });
    // No credit left: nothing more until the agent grants it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.received.filter((m) => m.type === 'run')).toEqual([]);
    agent.credit(3);
    expect((await agent.next('run')).checkSessionId).toBe(second);
    // The TCP run is never sent to an agent that cannot run TCP.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.received.filter((m) => m.type === 'run')).toEqual([]);
    // A run enqueued while the agent waits with credit is sent at once.
    const third = await trigger(checkId);
    expect((await agent.next('run')).checkSessionId).toBe(third);
  });

  it("hands out the check merged with its group, the inherited variables and the account's certificates", async () => {
    const { location } = await setup();
    const ignored = await createLocation(server, `gw-ignored-${n}`);
    const group = await server.api('POST', '/v1/check-groups', {
      name: `group ${n}`,
      privateLocations: [location.slugName],
      environmentVariables: [{ key: 'GROUP_VAR', value: 'from-group' }],
      apiCheckDefaults: { url: 'http://127.0.0.1:9', headers: [{ key: 'X-Group', value: '1' }] },
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 5, maxRetries: 1 },
    });
    expect(group.status).toBe(201);
    const checkId = await createApiCheck(server, {
      activated: false,
      groupId: group.body.id,
      privateLocations: [ignored.slugName],
      request: { url: '{{GROUP_BASE_URL}}/health', headers: [{ key: 'X-Own', value: '2' }] },
    });
    const variable = await server.api('POST', '/v1/variables', {
      key: 'ACCOUNT_VAR',
      value: 'hush',
      secret: true,
    });
    expect(variable.status).toBe(201);
    const { key, cert } = selfSignedCertificate();
    const certificate = await server.api('POST', '/v1/client-certificates', { host: '127.0.0.1', cert, key });
    expect(certificate.status).toBe(201);

    const agent = await connect(location.key);
    agent.credit(1);
    const sessionId = await trigger(checkId);
    const run = await agent.next('run');
    expect(run.checkSessionId).toBe(sessionId);
    expect(run.runLocation).toBe(location.slugName);
    expect(run.check).toMatchObject({
      id: checkId,
      privateLocations: [location.slugName],
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 5, maxRetries: 1 },
      request: {
        url: '{{GROUP_BASE_URL}}/health',
        headers: [expect.objectContaining({ key: 'X-Own' }), expect.objectContaining({ key: 'X-Group' })],
      },
    });
    expect(run.inheritedVariables).toEqual([
      [
        { key: 'GROUP_VAR', value: 'from-group', secret: false },
        { key: 'GROUP_BASE_URL', value: 'http://127.0.0.1:9' },
      ],
      [{ key: 'ACCOUNT_VAR', value: 'hush', secret: true }],
    ]);
    expect(run.clientCertificates).toEqual([{ host: '127.0.0.1', cert, key, ca: null, passphrase: null }]);
    await server.api('DELETE', '/v1/variables/ACCOUNT_VAR');
    await server.api('DELETE', `/v1/client-certificates/${certificate.body.id}`);
  });

  it('renews leases named in heartbeats and takes back released runs', async () => {
    const { location, checkId } = await setup();
    const agent = await connect(location.key, { agentId: 'holder' });
    agent.credit(3);
    await trigger(checkId);
    await trigger(checkId);
    const a = await agent.next('run');
    const b = await agent.next('run');
    clock.advance(20_000);
    agent.heartbeat([a.runId]);
    const lease = (id: string) =>
      server.server.runs.db.query<{ status: string; lease_expires_at: Date | null; agent_id: string | null }>(
        'SELECT status, lease_expires_at, agent_id FROM runs WHERE id = $1',
        [id],
      );
    const renewed = await until(
      () => lease(a.runId),
      ([row]) => row?.lease_expires_at?.getTime() === clock.now().getTime() + PROTOCOL_LIMITS.leaseTtlMs,
    );
    expect(renewed[0]?.lease_expires_at?.getTime()).toBe(clock.now().getTime() + PROTOCOL_LIMITS.leaseTtlMs);
    agent.release([b.runId]);
    const released = await until(
      () => lease(b.runId),
      ([row]) => row?.status === 'queued',
    );
    expect(released[0]).toMatchObject({ status: 'queued', agent_id: null });
    // Another agent of the location gets it; the leaving agent gets nothing more on its remaining credit.
    const helper = await connect(location.key, { agentId: 'helper' });
    helper.credit(1);
    expect((await helper.next('run')).runId).toBe(b.runId);
    await trigger(checkId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.received.filter((m) => m.type === 'run')).toEqual([]);
  });

  it('keeps an agent connected when its leases cannot be renewed for a moment, and renews them next time', async () => {
    const { agent, run } = await leasedRun('steady');
    const { db } = server.server.runs;
    const seen = async () =>
      (await db.query<{ last_seen: Date }>("SELECT last_seen FROM agents WHERE agent_id = 'steady'"))[0];
    // The store refuses every statement on runs, as it would in a deadlock or a moment without it.
    await db.exec('ALTER TABLE runs RENAME TO runs_elsewhere');
    try {
      clock.advance(10_000);
      agent.heartbeat([run.runId]);
      await until(seen, (row) => row?.last_seen.getTime() === clock.now().getTime());
    } finally {
      await db.exec('ALTER TABLE runs_elsewhere RENAME TO runs');
    }
    clock.advance(10_000);
    agent.heartbeat([run.runId]);
    const [renewed] = await until(
      () =>
        db.query<{ lease_expires_at: Date }>('SELECT lease_expires_at FROM runs WHERE id = $1', [run.runId]),
      ([row]) => row?.lease_expires_at.getTime() === clock.now().getTime() + PROTOCOL_LIMITS.leaseTtlMs,
    );
    expect(renewed?.lease_expires_at.getTime()).toBe(clock.now().getTime() + PROTOCOL_LIMITS.leaseTtlMs);
    expect(agent.received.filter((m) => m.type === 'error')).toEqual([]);
    expect(agent.ws.readyState).toBe(agent.ws.OPEN);
  });

  it('keeps a run with the agent that names it when it reconnects', async () => {
    const { location, agent, run } = await leasedRun('returning');
    agent.close();
    await agent.closed();
    const again = await connect(location.key, { agentId: 'returning', running: [run.runId] });
    const [row] = await server.server.runs.db.query<{ status: string; agent_id: string }>(
      'SELECT status, agent_id FROM runs WHERE id = $1',
      [run.runId],
    );
    expect(row).toEqual({ status: 'leased', agent_id: 'returning' });
    const posted = await again.postResult(run, apiResult());
    expect(posted.body).toEqual({ recorded: true, duplicate: false });
  });

  it('forwards a cancel to the agent running the run, and records its CANCELLED result', async () => {
    const { agent, sessionId, run } = await leasedRun('canceller');
    const cancelled = await server.api('POST', `/v1/check-sessions/${sessionId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', runId: run.runId });
    const result = { ...apiResult({ failed: 'the run was cancelled' }), aborted: true, isCancelled: true };
    expect((await agent.postResult(run, result, { status: 'CANCELLED' })).body).toEqual({
      recorded: true,
      duplicate: false,
    });
    const session = await server.api('GET', `/v2/check-sessions/${sessionId}`);
    expect(session.body.status).toBe('CANCELLED');
    expect(session.body.results).toEqual([
      expect.objectContaining({ isCancelled: true, resultType: 'FINAL' }),
    ]);
  });

  it('forwards a cancel asked for while its agent was away once the agent is back, at the next sweep', async () => {
    const { location, agent, sessionId, run } = await leasedRun('away');
    agent.close();
    await agent.closed();
    expect((await server.api('POST', `/v1/check-sessions/${sessionId}/cancel`)).status).toBe(200);
    const back = await connect(location.key, { agentId: 'away', running: [run.runId] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(back.received.filter((m) => m.type === 'cancel')).toEqual([]);
    // The sweep asks the store (background loops are off in these tests; a server runs it every second).
    await server.server.runs.sweeper.tick(true);
    expect(await back.next('cancel')).toEqual({ type: 'cancel', runId: run.runId });
  });

  it('closes the connections of a revoked key with REVOKED, and refuses the key from then on', async () => {
    const { location } = await setup();
    const agent = await connect(location.key, { agentId: 'revoked' });
    const revoked = await server.api('DELETE', `/v1/private-locations/${location.id}/keys/${location.keyId}`);
    expect(revoked.status).toBe(204);
    expect(await agent.next('error')).toMatchObject({ code: 'REVOKED', fatal: true });
    expect(await agent.closed()).toBe(CLOSE_CODES.revoked);
    await expect(TestAgent.open(server.url, location.key, server.accountId)).rejects.toThrow('HTTP 401');
  });

  it('stores error reports of agents and lists them on their location', async () => {
    const { location } = await setup();
    const report = {
      message: 'executor crashed',
      stack: 'Error: executor crashed\n    at run (agent.js:1:1)',
      agentVersion: '1.2.3',
      platform: 'linux',
      nodeVersion: 'v20.0.0',
      time: '2026-04-01T10:00:00.000Z',
    };
    const headers = { authorization: `Bearer ${location.key}`, 'x-service-account': server.accountId };
    const sent = await fetch(`${server.url}/v1/agent/errors`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-agent-id': 'reporter' },
      body: JSON.stringify(report),
    });
    expect(sent.status).toBe(201);
    const listed = await server.api('GET', `/v1/private-locations/${location.id}/errors`);
    expect(listed.body).toEqual([expect.objectContaining({ ...report, agentId: 'reporter' })]);
    // Agent keys open the agent routes only; user keys are refused there.
    expect((await fetch(`${server.url}/v1/private-locations`, { headers })).status).toBe(403);
    const asUser = await fetch(`${server.url}/v1/agent/errors`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify(report),
    });
    expect(asUser.status).toBe(403);
  });

  it('stores artifacts of a run and serves them to users; refuses more than 150 MB before reading it', async () => {
    const { location, run } = await leasedRun('uploader');
    const headers = {
      authorization: `Bearer ${location.key}`,
      'x-service-account': server.accountId,
      'x-agent-id': 'uploader',
    };
    const upload = await fetch(`${server.url}/v1/agent/runs/${run.runId}/artifacts/trace.zip`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/zip' },
      body: Buffer.from('PK fake zip'),
    });
    expect(upload.status).toBe(201);
    const { url } = (await upload.json()) as { url: string };
    expect(url).toBe(`${TEST_PUBLIC_URL}/v1/runs/${run.runId}/artifacts/trace.zip`);
    const download = await fetch(`${server.url}${new URL(url).pathname}`, { headers: server.headers });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(await download.text()).toBe('PK fake zip');
    // JSON artifacts pass through untouched too.
    const json = await fetch(`${server.url}/v1/agent/runs/${run.runId}/artifacts/report.json`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(json.status).toBe(201);
    // Another location's run, or a path-like name, is refused.
    const elsewhere = await fetch(`${server.url}/v1/agent/runs/no-such-run/artifacts/a.png`, {
      method: 'PUT',
      headers,
      body: 'x',
    });
    expect(elsewhere.status).toBe(404);
    const sneaky = await fetch(`${server.url}/v1/agent/runs/${run.runId}/artifacts/..%2Fescape`, {
      method: 'PUT',
      headers,
      body: 'x',
    });
    expect(sneaky.status).toBe(400);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${server.url}/v1/agent/runs/${run.runId}/artifacts/huge.webm`, {
        method: 'PUT',
        headers: { ...headers, 'content-length': String(PROTOCOL_LIMITS.artifactBytes + 1) },
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.on('error', reject);
      request.write(Buffer.alloc(1024));
    });
    expect(status).toBe(413);
  });
});

describe('the agent routes and the API rate limit', () => {
  it("an agent's results are not held to the per-key API rate limit; users still are", async () => {
    const clock = new TestClock();
    const server = await startTestServer('pglite', {
      rateLimit: { max: 3, windowMs: 60_000 },
      runs: { background: false, clock: clock.now },
    });
    try {
      const location = await createLocation(server, 'busy');
      await createApiCheck(server, { frequency: 0, frequencyOffset: 10, privateLocations: ['busy'] });
      for (let interval = 0; interval < 5; interval++) {
        await server.server.runs.scheduleTick();
        clock.advance(10_000);
      }
      // Every agent of a location shares its key: a limit per key would cap the whole location's results.
      const agent = await TestAgent.connect(server.url, location.key, server.accountId);
      agent.credit(5);
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await agent.next('run'));
      for (const run of runs) expect((await agent.postResult(run, apiResult())).status).toBe(200);
      agent.close();
      expect((await server.api('GET', '/v1/private-locations')).status).toBe(200);
      expect((await server.api('GET', '/v1/private-locations')).status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

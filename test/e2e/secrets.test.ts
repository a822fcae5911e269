/**
 * End to end: secrets of a check (its own secret variable, its group's, the account's, and an Authorization
 * header built from them) reach the monitored service and nothing else: not the results the API returns, not the
 * error groups, not the agent's log, not the error reports the agent sends (and with EXTERNAL_OBSERVABILITY=off
 * it sends none). The same with the agent's runs in a worker thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import {
  type TestServer as HttpServer,
  type ReceivedRequest,
  receiveRequest,
  startHttpServer,
} from '../support/http-servers.js';
import { agentsOf, apiCheckAt, checkResults, completed, FAST_RUNS, trigger } from '../support/runs.js';
import {
  type CreatedLocation,
  createApiCheck,
  createLocation,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const CHECK_SECRET = 'tok-S3cr3t value/123';
const GROUP_SECRET = 'grp-pa55word-xyz';
const ACCOUNT_SECRET = 'acct-0ther_Secret!';

/** Every form a secret could take on its way through URLs, headers and JSON. */
function formsOf(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    JSON.stringify(secret),
  ];
}

// Once with the agent's runs on its main thread, once in a worker thread of its own (AGENT_THREADS).
describe.each(['0', '1'])('AGENT_THREADS=%s', (threads) => {
  let echo: HttpServer;
  const received: ReceivedRequest[] = [];
  let server: TestServer;
  let location: CreatedLocation;
  let agent: TestAgent;
  beforeAll(async () => {
    // Echoes the request it received, secrets included, as a careless service would.
    echo = await startHttpServer(async (req, res) => {
      const request = await receiveRequest(req);
      received.push(request);
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-echo-auth': String(req.headers.authorization),
      });
      res.end(JSON.stringify(request));
    });
    server = await startTestServer('pglite', { runs: FAST_RUNS });
    location = await createLocation(server, 'vault');
    agent = await startTestAgent({ url: server.url, key: location.key }, { AGENT_THREADS: threads });
  });
  afterAll(async () => {
    await agent?.agent.stop();
    await server?.close();
    await echo?.close();
  });

  describe('secrets through control plane and agent', () => {
    it('reach the service, and none of the results, error groups, logs or error reports', async () => {
      const variable = await server.api('POST', '/v1/variables', {
        key: 'ACCOUNT_TOKEN',
        value: ACCOUNT_SECRET,
        secret: true,
      });
      expect(variable.status).toBe(201);
      const group = await server.api('POST', '/v1/check-groups', {
        name: 'Vault',
        environmentVariables: [{ key: 'GROUP_PASSWORD', value: GROUP_SECRET, secret: true }],
      });
      expect(group.status).toBe(201);
      const url = echo.url('/echo?token={{TOKEN}}');
      const checkId = await createApiCheck(
        server,
        apiCheckAt(url, {
          name: 'Echo with secrets',
          groupId: group.body.id,
          privateLocations: ['vault'],
          environmentVariables: [{ key: 'TOKEN', value: CHECK_SECRET, secret: true }],
          request: {
            url,
            method: 'POST',
            body: '{"password":"{{GROUP_PASSWORD}}"}',
            bodyType: 'JSON',
            headers: [
              { key: 'Authorization', value: 'Bearer {{TOKEN}}' },
              { key: 'X-Account', value: '{{ACCOUNT_TOKEN}}' },
            ],
            // Fails, so the response body (holding every secret) ends up in assertions and error messages.
            assertions: [
              {
                source: 'TEXT_BODY',
                comparison: 'CONTAINS',
                target: 'not in the body',
                property: '',
                regex: null,
              },
            ],
          },
        }),
      );

      const [sessionId] = await trigger(server, [checkId]);
      const session = await completed(server, sessionId as string);
      expect(session.status).toBe('FAILED');
      const [result] = session.results;
      expect(
        result.apiCheckResult.request.headers.Authorization ??
          result.apiCheckResult.request.headers.authorization,
      ).toBe('*****');
      expect(result.apiCheckResult.request.url).toBe(echo.url('/echo?token=*****'));
      expect(result.apiCheckResult.assertions[0].actual).toContain('*****');

      // An error-level event in the agent carrying every kind of sensitive data it knows.
      const failure = new Error(
        `request to ${echo.url(`/x?token=${CHECK_SECRET}`)} failed with key ${location.key} ` +
          `body {"password":"${GROUP_SECRET}"}\nAuthorization: Bearer ${ACCOUNT_SECRET}`,
      );
      agent.agent.log.error(
        { err: failure, headers: { authorization: `Bearer ${location.key}` }, apiKey: location.key },
        `delivery failed for ${GROUP_SECRET}`,
      );
      const reportsOf = async () =>
        (await server.api('GET', `/v1/private-locations/${location.id}/errors`)).body;
      await waitFor('the error report', async () => (await reportsOf()).length > 0);
      const reports = await reportsOf();

      const stored = JSON.stringify([
        session,
        await checkResults(server, checkId),
        (await server.api('GET', `/v1/check-results/${checkId}/${result.checkResultId}`)).body,
        (await server.api('GET', `/v1/error-groups?checkId=${checkId}`)).body,
        (await server.api('GET', `/v1/checks/${checkId}`)).body,
        (await server.api('GET', `/v1/check-groups/${group.body.id}`)).body,
        (await server.api('GET', '/v1/variables')).body,
      ]);
      const logs = agent.logs.text;
      const reportText = JSON.stringify(reports);
      for (const secret of [CHECK_SECRET, GROUP_SECRET, ACCOUNT_SECRET, location.key].flatMap(formsOf)) {
        expect(stored).not.toContain(secret);
        expect(logs).not.toContain(secret);
        expect(reportText).not.toContain(secret);
      }
      expect(reportText).not.toContain(echo.origin);
      expect(reportText).not.toContain('127.0.0.1');
      expect(reportText).not.toMatch(/authorization/i);
      expect(reports[0].message).toMatch(/^delivery failed for \*\*\*\*\*: request to \[url\]/);
      // Which agent of the location it came from.
      expect(reports[0]).toMatchObject({ agentId: agent.agent.agentId, nodeVersion: process.version });

      // The service itself got every secret in clear: the check really used them.
      expect(received).toHaveLength(1);
      expect(received[0]?.headers).toMatchObject({
        authorization: `Bearer ${CHECK_SECRET}`,
        'x-account': ACCOUNT_SECRET,
      });
      expect(new URL(received[0]?.url ?? '', echo.origin).searchParams.get('token')).toBe(CHECK_SECRET);
      expect(JSON.parse(received[0]?.body ?? '')).toEqual({ password: GROUP_SECRET });
    });

    it('hide Basic credentials (also base64-encoded) and locked values; a short secret corrupts nothing', async () => {
      const LOCKED = 'locked-Val-987';
      const BASIC = { username: 'alice', password: 'BasicPassW0rdX' };
      const basicHeader = Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64');
      expect(
        (await server.api('POST', '/v1/variables', { key: 'LOCKED_TOKEN', value: LOCKED, locked: true }))
          .status,
      ).toBe(201);
      const pin = await server.api('POST', '/v1/variables', { key: 'PIN', value: '0', secret: true });
      expect(pin.body.warnings).toEqual([
        expect.stringContaining('secret variable PIN is shorter than 6 characters'),
      ]);
      const url = echo.url('/basic?n=100200');
      const checkId = await createApiCheck(
        server,
        apiCheckAt(url, {
          name: 'Echo with Basic auth',
          privateLocations: ['vault'],
          request: {
            url,
            method: 'GET',
            basicAuth: BASIC,
            headers: [
              { key: 'X-Locked', value: '{{LOCKED_TOKEN}}' },
              { key: 'X-Pin', value: '{{PIN}}' },
            ],
            assertions: [
              { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null },
            ],
          },
        }),
      );
      const [sessionId] = await trigger(server, [checkId]);
      const session = await completed(server, sessionId as string);
      expect(session.status).toBe('PASSED');
      const response = session.results[0].apiCheckResult.response;
      // The echo of the headers: credentials masked. The short secret is masked where it is a whole value (the
      // request's header) and nowhere inside other text: every 0 of the body is left as it was, as the warning says.
      const echoed = JSON.parse(response.body);
      expect(echoed.headers).toMatchObject({
        authorization: 'Basic *****',
        'x-locked': '*****',
        'x-pin': '0',
      });
      const sent = session.results[0].apiCheckResult.request.headers;
      expect(sent['X-Pin'] ?? sent['x-pin']).toBe('*****');
      expect(echoed.url).toBe('/basic?n=100200');
      expect(response.headers['x-echo-auth']).toBe('Basic *****');
      const stored = JSON.stringify([session, await checkResults(server, checkId)]);
      for (const secret of [basicHeader, BASIC.password, LOCKED]) {
        expect(stored).not.toContain(secret);
        expect(agent.logs.text).not.toContain(secret);
      }
      expect(agent.logs.text).toContain('secret variable PIN is shorter than 6 characters');
      // The service got them all in clear.
      expect(received.at(-1)?.headers).toMatchObject({
        authorization: `Basic ${basicHeader}`,
        'x-locked': LOCKED,
        'x-pin': '0',
      });
    });

    it('with EXTERNAL_OBSERVABILITY=off the agent sends no error report, and still logs the error', async () => {
      const quiet = await createLocation(server, 'quiet');
      const off = await startTestAgent(
        { url: server.url, key: quiet.key },
        { EXTERNAL_OBSERVABILITY: 'off' },
      );
      try {
        await waitFor('the agent connected', async () => (await agentsOf(server, quiet.id)).count === 1);
        off.agent.log.error(new Error('something broke'), 'an error');
        await off.agent.flushErrorReports();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const reports = await server.api('GET', `/v1/private-locations/${quiet.id}/errors`);
        expect(reports).toEqual({ status: 200, body: [] });
        expect(off.logs.text).toContain('something broke');
      } finally {
        await off.agent.stop();
      }
    });
  });
});

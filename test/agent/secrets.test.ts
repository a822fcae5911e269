import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { receiveRequest, startHttpServer, type TestServer } from '../support/http-servers.js';
import { startTestAgent, TEST_KEY, type TestAgent } from './support/agent.js';
import { apiCheck } from './support/checks.js';

const CHECK_SECRET = 'tok-S3cr3t value/123';
const GROUP_SECRET = 'grp-pa55word-xyz';

/** Every form a secret could take on its way through URLs, headers and JSON. */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, '+')];
}

let target: TestServer;
beforeAll(async () => {
  // Echoes the request it received, secrets included, as a careless service would.
  target = await startHttpServer(async (req, res) => {
    const received = await receiveRequest(req);
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-echo-auth': String(req.headers.authorization),
    });
    res.end(JSON.stringify(received));
  });
});
afterAll(() => target.close());

let fake: FakeControlPlane;
let agent: TestAgent;
afterEach(async () => {
  await agent.agent.stop();
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

describe('agent: secrets stay secret', () => {
  it('results, logs and error reports of a run whose check carries secrets hold none of them', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    agent = await startTestAgent(fake);
    const check = apiCheck(target.url('/echo?token={{TOKEN}}'), {
      environmentVariables: [{ key: 'TOKEN', value: CHECK_SECRET, secret: true }],
    });
    (check.request as Record<string, unknown>).headers = [
      { key: 'Authorization', value: 'Bearer {{TOKEN}}' },
      { key: 'X-Group', value: '{{GROUP_PASSWORD}}' },
    ];
    (check.request as { assertions: unknown[] }).assertions.push({
      source: 'TEXT_BODY',
      comparison: 'CONTAINS',
      target: 'not in the body',
      property: '',
      regex: null,
    });
    const run = fake.enqueue(
      fake.run(check, {
        inheritedVariables: [[{ key: 'GROUP_PASSWORD', value: GROUP_SECRET, secret: true }]],
      }),
    );
    const upload = await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    expect(upload.status).toBe('FAILED');
    const result = JSON.stringify(upload);
    expect(result).toContain('*****');

    // An error-level event carrying every kind of sensitive data the agent knows.
    const failure = new Error(
      `request to ${target.url(`/x?token=${CHECK_SECRET}`)} failed with key ${TEST_KEY} ` +
        `body {"password":"${GROUP_SECRET}"}\nAuthorization: Bearer ${CHECK_SECRET}`,
    );
    agent.agent.log.error(
      { err: failure, headers: { authorization: `Bearer ${TEST_KEY}` }, apiKey: TEST_KEY },
      `delivery failed for ${GROUP_SECRET}`,
    );
    await fake.waitFor('the error report', () => fake.errorReports[0]);
    const reports = JSON.stringify(fake.errorReports);
    const logs = agent.logs.text;

    for (const secret of [CHECK_SECRET, GROUP_SECRET, TEST_KEY].flatMap(formsOf)) {
      expect(result).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(reports).not.toContain(secret);
    }
    expect(reports).not.toContain(target.origin);
    expect(reports).not.toContain('127.0.0.1');
    expect(reports).not.toMatch(/authorization/i);
    expect(fake.errorReports[0]?.message).toMatch(/^delivery failed for \*\*\*\*\*: request to \[url\]/);
    expect(fake.errorReports[0]).toMatchObject({ nodeVersion: process.version });
  });

  it('sends no error report with EXTERNAL_OBSERVABILITY=off', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    agent = await startTestAgent(fake, { EXTERNAL_OBSERVABILITY: 'off' });
    await fake.waitFor('a connection', () => fake.live[0]);
    agent.agent.log.error(new Error('something broke'), 'an error');
    await agent.agent.flushErrorReports();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.errorReports).toEqual([]);
    expect(agent.logs.text).toContain('something broke');
  });
});

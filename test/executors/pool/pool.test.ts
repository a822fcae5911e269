import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Check,
  type CheckSession,
  failureOf,
  parseCheck,
  runSecrets,
  secretMasker,
  VariableSet,
} from '../../../src/checks/index.js';
import { CheckPool, poolShape, serializedSession } from '../../../src/executors/pool/index.js';
import { defaultExecutors } from '../../../src/executors/registry.js';
import { type AttemptEnd, runAttempt } from '../../../src/executors/run/attempt.js';
import { runCheckSession } from '../../../src/executors/run/session.js';
import { startDnsServer, type TestDnsServer, zone } from '../../support/dns-server.js';
import { closedPort, echoServer, type TcpTestServer } from '../../support/tcp-servers.js';

const SECRET = 'pool-secret-value-4711';
const OPTIONS = { runLocation: 'test', runSource: 'TEST_NO_RECORD' } as const;

let http: Server;
let base: string;
let tcp: TcpTestServer;
let dns: TestDnsServer;
let closed: number;

beforeAll(async () => {
  http = createServer((req, res) => {
    if (req.url === '/fail') res.writeHead(500).end('no');
    // Sends back the header it got: a secret in it must come back masked.
    else if (req.url === '/echo') res.end(`token=${req.headers['x-token']}`);
    else res.end('ok');
  }).listen(0, '127.0.0.1');
  await once(http, 'listening');
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  tcp = await echoServer();
  dns = await startDnsServer(zone([{ name: 'pool.test', type: 'A', data: '127.0.0.1' } as never]));
  closed = await closedPort();
});

afterAll(async () => {
  http.closeAllConnections();
  http.close();
  await tcp.close();
  await dns.close();
});

function check(fields: Record<string, unknown>): Check {
  const parsed = parseCheck(fields);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

/** What must not differ between a thread and the main thread (ids and times do). */
function outcome(session: CheckSession) {
  return {
    name: session.name,
    status: session.status,
    results: session.results.map((r) => ({
      resultType: r.resultType,
      hasErrors: r.hasErrors,
      hasFailures: r.hasFailures,
      failure: failureOf(r)?.replace(/\d+(\.\d+)? ms/g, 'N ms'),
    })),
  };
}

const CHECKS = () => [
  check({ name: 'url passes', checkType: 'URL', request: { url: `${base}/` } }),
  check({ name: 'url fails with 500', checkType: 'URL', request: { url: `${base}/fail` } }),
  check({ name: 'url to a closed port', checkType: 'URL', request: { url: `http://127.0.0.1:${closed}/` } }),
  check({
    name: 'api assertion fails',
    checkType: 'API',
    request: {
      url: `${base}/`,
      assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'not ok', property: '' }],
    },
  }),
  check({
    name: 'api echoes a secret',
    checkType: 'API',
    environmentVariables: [{ key: 'TOKEN', value: SECRET, secret: true }],
    request: {
      url: `${base}/echo`,
      headers: [{ key: 'x-token', value: '{{TOKEN}}' }],
      assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'something else', property: '' }],
    },
  }),
  check({
    name: 'tcp echo',
    checkType: 'TCP',
    request: {
      hostname: '127.0.0.1',
      port: tcp.port,
      data: 'PING',
      assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'PING', property: '' }],
    },
  }),
  check({
    name: 'dns answer',
    checkType: 'DNS',
    request: { nameServer: dns.address, port: dns.port, query: 'pool.test', recordType: 'A' },
  }),
  check({
    name: 'dns nxdomain',
    checkType: 'DNS',
    request: { nameServer: dns.address, port: dns.port, query: 'missing.test', recordType: 'A' },
  }),
];

const EXPECTED = ['PASSED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'PASSED', 'PASSED', 'FAILED'];

describe('CheckPool', () => {
  it('runs URL, API, TCP and DNS sessions in threads with the outcomes of the main thread, secrets masked', async () => {
    const checks = CHECKS();
    // Two lanes: a worker thread, and the main thread taking its share.
    const pool = new CheckPool({ threads: 1, mainThread: true, concurrency: 4 });
    try {
      const inThreads = await Promise.all(checks.map((c) => pool.runSession(c, OPTIONS)));
      const here = await Promise.all(checks.map((c) => runCheckSession(c, OPTIONS)));
      expect(inThreads.map(outcome)).toEqual(here.map(outcome));
      expect(inThreads.map((s) => s.status)).toEqual(EXPECTED);
      const echoed = inThreads[4] as CheckSession;
      const json = serializedSession(echoed);
      if (json !== undefined) expect(json).toBe(JSON.stringify(echoed));
      expect(serializedSession(echoed) ?? JSON.stringify(echoed)).toContain('token=');
      expect(JSON.stringify(inThreads)).not.toContain(SECRET);
    } finally {
      await pool.close();
    }
  });

  it("runs single attempts (an agent's runs) in threads with the main thread's outcomes, secrets masked", async () => {
    const checks = CHECKS();
    const pool = new CheckPool({ threads: 1, concurrency: 4 });
    const common = (i: number) => ({
      runId: `run-${i}`,
      runLocation: 'test',
      clientCertificates: [],
      limitMs: 10_000,
    });
    const gist = ({ attempt, timedOut, cancelled }: AttemptEnd) => ({
      hasErrors: attempt.hasErrors,
      hasFailures: attempt.hasFailures,
      networkError: attempt.networkError,
      error: attempt.error?.replace(/\d+(\.\d+)? ms/g, 'N ms'),
      timedOut,
      cancelled,
      startedAt: attempt.startedAt instanceof Date,
    });
    try {
      const inThreads = await Promise.all(
        checks.map((c, i) => {
          const secrets = runSecrets(c, new VariableSet(c.environmentVariables));
          return pool.runAttempt(c, { ...common(i), inherited: [], secrets });
        }),
      );
      const here = await Promise.all(
        checks.map((c, i) => {
          const variables = new VariableSet(c.environmentVariables);
          const mask = secretMasker(runSecrets(c, variables));
          return runAttempt(c, { ...common(i), variables, mask, executors: defaultExecutors });
        }),
      );
      expect(inThreads.map(gist)).toEqual(here.map(gist));
      expect(inThreads.map((end) => end.attempt.hasFailures || end.attempt.hasErrors)).toEqual(
        EXPECTED.map((status) => status === 'FAILED'),
      );
      expect(JSON.stringify(inThreads[4])).toContain('token=');
      expect(JSON.stringify(inThreads)).not.toContain(SECRET);
    } finally {
      await pool.close();
    }
  });

  it('without holding ahead, gives each job to the lane with the most free slots: none waits while one is free', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = createServer((_req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.end('ok');
      }, 300);
    }).listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`;
    // Two lanes of two slots: four jobs at once run at once, two on each.
    const pool = new CheckPool({ threads: 1, mainThread: true, concurrency: 4, holdAhead: false });
    try {
      const jobs = [1, 2, 3, 4].map((i) => check({ name: `slow ${i}`, checkType: 'URL', request: { url } }));
      const ends = await Promise.all(
        jobs.map((c, i) =>
          pool.runAttempt(c, {
            runId: `slow-${i}`,
            inherited: [],
            secrets: [],
            runLocation: 'test',
            clientCertificates: [],
            limitMs: 10_000,
          }),
        ),
      );
      expect(ends.map((end) => end.attempt.hasErrors || end.attempt.hasFailures)).toEqual([
        false,
        false,
        false,
        false,
      ]);
      expect(most).toBe(4);
    } finally {
      await pool.close();
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('is shaped by a thread setting: auto sizes lanes to the cores and the concurrency, a number is threads', () => {
    const endless = Number.POSITIVE_INFINITY;
    expect(poolShape('auto', 10, endless, 2)).toEqual({ threads: 1, mainThread: true });
    expect(poolShape('auto', 10, endless, 8)).toEqual({ threads: 7, mainThread: true });
    expect(poolShape('auto', 3, endless, 8)).toEqual({ threads: 2, mainThread: true });
    // One lane is worth nothing; nor are threads for a few hundred sessions (`vantage run`).
    expect(poolShape('auto', 1, endless, 8)).toEqual({ threads: 0, mainThread: false });
    expect(poolShape('auto', 10, 600, 8)).toEqual({ threads: 0, mainThread: false });
    expect(poolShape(3, 10, 600, 2)).toEqual({ threads: 3, mainThread: false });
    expect(poolShape(0, 10, endless, 8)).toEqual({ threads: 0, mainThread: false });
  });

  it('fails the sessions of a thread that dies, with the reason, and goes on with a new thread', async () => {
    const pool = new CheckPool({ threads: 1, concurrency: 2 });
    const silent = await echoServer();
    try {
      const waits = check({
        name: 'waits for a reply',
        checkType: 'TCP',
        request: {
          hostname: '127.0.0.1',
          port: silent.port,
          assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'never', property: '' }],
        },
      });
      const held = pool.runSession(waits, OPTIONS);
      while (silent.connections() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const [thread] = pool.threads;
      await thread?.terminate();
      const lost = await held;
      expect(lost.status).toBe('FAILED');
      expect(failureOf(lost.results[0] as never)).toBe(
        'the check did not finish: the worker thread holding it stopped (exit code 1)',
      );
      expect(pool.threads[0]).not.toBe(thread);
      const after = await Promise.all(CHECKS().map((c) => pool.runSession(c, OPTIONS)));
      expect(after.map((s) => s.status)).toEqual(EXPECTED);
    } finally {
      await silent.close();
      await pool.close();
    }
  });

  it('cancels the sessions it holds, and those still waiting to be sent to a thread', async () => {
    const pool = new CheckPool({ threads: 2, concurrency: 2 });
    const silent = await echoServer();
    try {
      // Two threads of one slot hold four sessions: the other four wait in the pool.
      const waiting = Array.from({ length: 8 }, (_, i) =>
        pool.runSession(
          check({
            name: `waits ${i}`,
            checkType: 'TCP',
            request: {
              hostname: '127.0.0.1',
              port: silent.port,
              assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'never', property: '' }],
            },
          }),
          OPTIONS,
        ),
      );
      pool.cancelAll();
      const sessions = await Promise.all(waiting);
      expect(sessions.map((s) => s.status)).toEqual(Array(8).fill('CANCELLED'));
    } finally {
      await silent.close();
      await pool.close();
    }
  });
});

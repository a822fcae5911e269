import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoTarget, startDemoTarget } from '../../src/cli/demo/target.js';
import { runCli, sessionsByName } from '../support/cli.js';

let demo: DemoTarget;
let dir: string;
let counting: Server;
let countingUrl: string;
let requests = 0;
let inFlight = 0;
let maxInFlight = 0;

async function writeChecks(name: string, checks: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(checks));
  return file;
}

beforeAll(async () => {
  demo = await startDemoTarget();
  dir = await mkdtemp(join(tmpdir(), 'vantage-run-'));
  counting = createServer((req, res) => {
    requests++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(req.url === '/fail' ? 500 : 200).end('ok');
    }, 150);
  });
  counting.listen(0, '127.0.0.1');
  await once(counting, 'listening');
  countingUrl = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await demo.close();
  counting.closeAllConnections();
  counting.close();
});

describe('vantage run', () => {
  it('runs the examples against the demo shop: every session passes or is degraded', async () => {
    const run = await runCli([
      'run',
      'examples/checks.yaml',
      '--reporter',
      'json',
      '--env',
      `TARGET=${demo.url}`,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const sessions = sessionsByName(run.stdout);
    expect(sessions.size).toBe(8);
    expect(sessions.get('Slow search is degraded, not failed')?.status).toBe('DEGRADED');
    expect(sessions.get('Missing page answers 404 (shouldFail)')?.status).toBe('PASSED');
    for (const [name, session] of sessions) {
      if (!name.startsWith('Slow')) expect(session.status, name).toBe('PASSED');
      expect(Object.keys(session)).toEqual([
        'checkSessionId',
        'checkSessionLink',
        'checkId',
        'checkType',
        'name',
        'status',
        'startedAt',
        'stoppedAt',
        'timeElapsed',
        'runLocations',
        'runSource',
        'results',
      ]);
    }
    const account = sessions.get('Account needs its password');
    expect(JSON.stringify(account)).not.toContain('demo-password');
    const result = account?.results[0];
    expect(result).toMatchObject({
      resultType: 'FINAL',
      attempts: 1,
      runLocation: 'local',
      hasErrors: false,
    });
    expect(
      result.apiCheckResult.request.headers.authorization ??
        result.apiCheckResult.request.headers.Authorization,
    ).toBe('*****');
  });

  it('refuses an invalid file with every problem listed and runs nothing (exit 2)', async () => {
    const file = await writeChecks('invalid.json', [
      { checkType: 'URL', name: 'Good', request: { url: `${countingUrl}/` } },
      { checkType: 'URL', name: 'Homepage', frequencyOffset: 101, request: { url: `${countingUrl}/` } },
      {
        checkType: 'API',
        name: 'Broken',
        maxResponseTime: 40_000,
        request: { url: 'nope', method: 'FETCH' },
      },
    ]);
    const before = requests;
    const run = await runCli(['run', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'checks[1] "Homepage": frequencyOffset: must be between 1 and 100 when frequency is 10',
    );
    expect(run.stderr).toContain('checks[2] "Broken": request.url: must be an http:// or https:// URL');
    expect(run.stderr).toContain('checks[2] "Broken": request.method: must be one of GET, POST');
    expect(run.stderr).toContain('checks[2] "Broken": maxResponseTime: must be at most 30000');
    expect(requests).toBe(before);
  });

  it('exits 1 when a check fails and shows the failing assertion in the list', async () => {
    const file = await writeChecks('failing.json', [
      {
        checkType: 'API',
        name: 'Wants 201',
        doubleCheck: false,
        request: {
          url: `${countingUrl}/`,
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '201' }],
        },
      },
      { checkType: 'URL', name: 'Fine', request: { url: `${countingUrl}/` } },
    ]);
    const run = await runCli(['run', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✖ FAILED +Wants 201 \(API\) [\d.]+ ms\n +.*201/);
    expect(run.stdout).toMatch(/✔ PASSED +Fine \(URL\) [\d.]+ ms/);
    expect(run.stdout).toContain('2 checks: 1 passed, 1 failed');
  });

  it('writes JUnit XML to --output', async () => {
    const file = await writeChecks('junit.json', [
      { checkType: 'URL', name: 'Up', request: { url: `${countingUrl}/` } },
      { checkType: 'URL', name: 'Down', doubleCheck: false, request: { url: `${countingUrl}/fail` } },
    ]);
    const output = join(dir, 'junit.xml');
    const run = await runCli(['run', file, '--reporter', 'junit', '--output', output]);
    expect(run.code).toBe(1);
    const xml = await readFile(output, 'utf8');
    expect(xml).toContain('<testsuite name="vantage run" tests="2" failures="1"');
    expect(xml).toMatch(/<testcase classname="URL" name="Down" time="[\d.]+">\s*<failure/);
    expect(xml).toMatch(/<testcase classname="URL" name="Up" time="[\d.]+"\/>/);
    expect(xml).toContain('status 500 is 400 or above');
    expect((await runCli(['run', file, '--reporter', 'junit'])).code).toBe(2);
  });

  it('selects checks with --grep and fills {{VAR}} from --env', async () => {
    const file = await writeChecks('grep.json', [
      { checkType: 'URL', name: 'Shop home', request: { url: '{{BASE}}/' } },
      { checkType: 'URL', name: 'Blog home', request: { url: '{{BASE}}/' } },
    ]);
    const run = await runCli([
      'run',
      file,
      '--reporter',
      'json',
      '--grep',
      '^shop',
      '--env',
      `BASE=${countingUrl}`,
    ]);
    expect(run.code).toBe(0);
    const sessions = sessionsByName(run.stdout);
    expect([...sessions.keys()]).toEqual(['Shop home']);
    expect(sessions.get('Shop home')?.results[0].apiCheckResult.request.url).toBe(`${countingUrl}/`);
    expect((await runCli(['run', file, '--grep', 'nothing-matches'])).code).toBe(2);
  });

  it('runs at most --concurrency checks at once', async () => {
    const checks = Array.from({ length: 6 }, (_, i) => ({
      checkType: 'URL',
      name: `c${i}`,
      request: { url: `${countingUrl}/` },
    }));
    const file = await writeChecks('concurrency.json', checks);
    maxInFlight = 0;
    const run = await runCli(['run', file, '--concurrency', '2']);
    expect(run.code).toBe(0);
    expect(maxInFlight).toBe(2);
  });

  it('runs URL checks in worker threads (--threads) with the outcomes of the main thread, --concurrency shared out', async () => {
    const checks = [
      ...Array.from({ length: 6 }, (_, i) => ({
        checkType: 'URL',
        name: `ok ${i}`,
        request: { url: `${countingUrl}/` },
      })),
      { checkType: 'URL', name: 'broken', request: { url: `${countingUrl}/fail` } },
      { checkType: 'URL', name: 'unreachable', request: { url: 'http://127.0.0.1:1/' } },
    ];
    const file = await writeChecks('threads.json', checks);
    const outcomes = (stdout: string) =>
      [...sessionsByName(stdout)].map(([name, s]) => [name, s.status, s.results.at(-1).hasErrors]).sort();
    maxInFlight = 0;
    const threaded = await runCli([
      'run',
      file,
      '--threads',
      '2',
      '--concurrency',
      '3',
      '--reporter',
      'json',
    ]);
    expect(maxInFlight).toBe(3);
    const inline = await runCli(['run', file, '--threads', '0', '--reporter', 'json']);
    expect(threaded.stderr).toBe('');
    expect([threaded.code, inline.code]).toEqual([1, 1]);
    expect(outcomes(threaded.stdout)).toEqual(outcomes(inline.stdout));
    expect(outcomes(threaded.stdout).filter(([, status]) => status === 'PASSED')).toHaveLength(6);
    // Two runs, from source, threads loading through tsx: slow on a loaded machine (a wait, not a goal).
  }, 120_000);

  it('runs 60 checks 50 at a time, retries waiting among them, with no listener-leak warning', async () => {
    const checks = Array.from({ length: 60 }, (_, i) => ({
      checkType: 'URL',
      name: `c${i}`,
      ...(i % 2 === 0
        ? { request: { url: `${countingUrl}/` } }
        : {
            retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 1 },
            request: { url: `${countingUrl}/fail` },
          }),
    }));
    const file = await writeChecks('fifty.json', checks);
    const run = await runCli(['run', file, '--concurrency', '50', '--reporter', 'json']);
    expect(run.code).toBe(1);
    expect(sessionsByName(run.stdout).size).toBe(60);
    expect(run.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
    expect(run.stderr).toBe('');
  });

  it('retries a failing check by its strategy: ATTEMPT results, then one FINAL', async () => {
    const file = await writeChecks('retry.json', [
      {
        checkType: 'URL',
        name: 'Flaky',
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 2 },
        request: { url: `${countingUrl}/fail` },
      },
    ]);
    const run = await runCli(['run', file, '--reporter', 'json']);
    expect(run.code).toBe(1);
    const results = sessionsByName(run.stdout).get('Flaky')?.results;
    expect(results.map((r: { resultType: string; attempts: number }) => [r.resultType, r.attempts])).toEqual([
      ['ATTEMPT', 1],
      ['ATTEMPT', 2],
      ['FINAL', 3],
    ]);
  });

  it('does not retry what fails alike every time: an undefined variable, a runtime that is not installed', async () => {
    const file = await writeChecks('permanent.json', [
      {
        checkType: 'API',
        name: 'Undefined host',
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 2 },
        request: { url: 'http://{{NO_SUCH_HOST}}/', method: 'GET' },
      },
      {
        checkType: 'BROWSER',
        name: 'Old runtime',
        runtimeId: '2022.10',
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 2 },
        script: 'await page.goto("about:blank")',
      },
    ]);
    const run = await runCli(['run', file, '--reporter', 'json']);
    expect(run.code).toBe(1);
    const sessions = sessionsByName(run.stdout);
    for (const name of ['Undefined host', 'Old runtime']) {
      const results = sessions.get(name)?.results;
      expect(results.map((r: { resultType: string }) => r.resultType)).toEqual(['FINAL']);
    }
    expect(JSON.stringify(sessions.get('Undefined host'))).toContain('{{NO_SUCH_HOST}}');
    expect(JSON.stringify(sessions.get('Old runtime'))).toContain('runtime 2022.10 is not available');
  });

  it('fails kinds it cannot run with a message, and still runs the rest of the batch', async () => {
    const file = await writeChecks('kinds.json', [
      {
        checkType: 'HEARTBEAT',
        name: 'Nightly job',
        heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
      },
      { checkType: 'URL', name: 'Up', request: { url: `${countingUrl}/` } },
    ]);
    const run = await runCli(['run', file, '--reporter', 'json']);
    expect(run.code).toBe(1);
    const sessions = sessionsByName(run.stdout);
    expect(sessions.get('Up')?.status).toBe('PASSED');
    expect(sessions.get('Nightly job')?.status).toBe('FAILED');
    expect(JSON.stringify(sessions.get('Nightly job'))).toContain('HEARTBEAT checks cannot run here');
  });

  it('explains unreadable files and bad options', async () => {
    expect((await runCli(['run', join(dir, 'missing.yaml')])).stderr).toContain(
      'missing.yaml: cannot be read: no such file',
    );
    expect((await runCli(['run', 'examples/checks.yaml', '--concurrency', '0'])).code).toBe(2);
    expect((await runCli(['run', 'examples/checks.yaml', '--reporter', 'xml'])).code).toBe(2);
  });
});

import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretMasker, type Variable, VariableSet } from '../../../src/checks/index.js';
import { executeApi } from '../../../src/executors/http/index.js';
import type { ExecutionContext } from '../../../src/executors/types.js';
import { type ReceivedRequest, startRecordingServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext } from './fixtures.js';

let server: TestServer & { received: ReceivedRequest[] };

beforeAll(async () => {
  server = await startRecordingServer((req, res) => {
    const status = req.url?.startsWith('/fail') ? 500 : 201;
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true,"id":42}');
  });
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

/** A context as a run builds it: the variables' secrets masked. */
function maskingContext(variables: Variable[], signal?: AbortSignal): ExecutionContext {
  const set = new VariableSet(variables);
  return { ...runContext({ variables, signal }), mask: secretMasker(set.secretValues()) };
}

/** Whether a process is alive; a zombie (killed, not yet reaped by its new parent) is not. */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return false;
  return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
}

function messages(attempt: Awaited<ReturnType<typeof executeApi>>): string[] {
  return apiResult(attempt).jobLog.map((line) => line.msg);
}

describe('setup scripts', () => {
  it('change the request: a header, the URL and the query, with the variables as process.env', async () => {
    const check = apiCheck(
      { url: server.url('/original'), queryParameters: [{ key: 'a', value: '1' }] },
      {
        localSetupScript: `
          await new Promise((r) => setTimeout(r, 1200));
          request.headers['X-Token'] = 'Bearer ' + process.env.TOKEN;
          request.url = request.url.replace('/original', '/changed');
          request.queryParameters.b = '2';
          console.log('set up', request.method);
        `,
      },
    );
    const attempt = await executeApi(check, runContext({ variables: [{ key: 'TOKEN', value: 't0k' }] }));
    expect(attempt.error).toBeNull();
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.url).toBe('/changed?a=1&b=2');
    expect(server.received[0]?.headers['x-token']).toBe('Bearer t0k');
    expect(apiResult(attempt).request.url).toBe(server.url('/changed?a=1&b=2'));
    expect(messages(attempt)).toContain('set up GET');
    // The script waited 1.2 s; the response time is the request's alone.
    expect(attempt.responseTime).toBeLessThan(1000);
  });

  it('use setupScript.content over localSetupScript when both are set', async () => {
    const check = apiCheck(
      { url: server.url('/both') },
      {
        setupScript: { content: "request.headers['X-From'] = 'setupScript';" },
        localSetupScript: "request.headers['X-From'] = 'localSetupScript';",
      },
    );
    await executeApi(check, runContext());
    expect(server.received[0]?.headers['x-from']).toBe('setupScript');
  });

  it('fail the run with their error, and nothing is sent', async () => {
    const check = apiCheck(
      { url: server.url('/never') },
      { localSetupScript: "throw new Error('no token today');" },
    );
    const attempt = await executeApi(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toContain('setup script failed');
    expect(attempt.error).toContain('no token today');
    expect(apiResult(attempt).requestError).toBe(attempt.error);
    expect(server.received).toHaveLength(0);
  });

  it('cannot read the agent API_KEY', async () => {
    const saved = process.env.API_KEY;
    process.env.API_KEY = 'agent-key-must-not-leak';
    try {
      const check = apiCheck(
        { url: server.url('/key') },
        { localSetupScript: "console.log('API_KEY is', typeof process.env.API_KEY);" },
      );
      const attempt = await executeApi(check, runContext());
      expect(messages(attempt)).toContain('API_KEY is undefined');
      expect(JSON.stringify(attempt)).not.toContain('agent-key-must-not-leak');
    } finally {
      if (saved === undefined) delete process.env.API_KEY;
      else process.env.API_KEY = saved;
    }
  });

  it('are killed with every process they started when the run is stopped', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'vantage-hang-'));
    await chmod(folder, 0o777); // scripts run as nobody when the tests run as root
    const pidFile = join(folder, 'pids');
    try {
      const controller = new AbortController();
      const check = apiCheck(
        { url: server.url('/hang') },
        {
          localSetupScript: `
            const child = require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' });
            require('node:fs').writeFileSync(process.env.PID_FILE, process.pid + ' ' + child.pid);
            await new Promise(() => setInterval(() => {}, 1000));
          `,
        },
      );
      const running = executeApi(
        check,
        runContext({ signal: controller.signal, variables: [{ key: 'PID_FILE', value: pidFile }] }),
      );
      for (let i = 0; i < 100 && !(await readFile(pidFile, 'utf8').catch(() => '')); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const pids = (await readFile(pidFile, 'utf8')).split(' ').map(Number);
      expect(pids).toHaveLength(2);
      controller.abort(new Error('cancelled'));
      const attempt = await running;
      expect(attempt.hasErrors).toBe(true);
      expect(attempt.error).toContain('setup script failed');
      expect(server.received).toHaveLength(0);
      for (const pid of pids) expect(await isRunning(pid)).toBe(false);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('teardown scripts', () => {
  it('read the response, and what they print is in the job log', async () => {
    const check = apiCheck(
      { url: server.url('/created') },
      {
        tearDownScript: {
          content: "console.log('got', response.statusCode, JSON.parse(response.body).id, request.url);",
        },
      },
    );
    const attempt = await executeApi(check, runContext());
    expect(attempt.error).toBeNull();
    expect(messages(attempt)).toContain(`got 201 42 ${server.url('/created')}`);
  });

  it('may change the response the assertions see', async () => {
    const check = apiCheck(
      {
        url: server.url('/fail'),
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null },
        ],
      },
      { localTearDownScript: 'response.statusCode = 200;' },
    );
    const attempt = await executeApi(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false });
    expect(apiResult(attempt).response?.status).toBe(200);
  });

  it('fail the run when they throw, after the request', async () => {
    const check = apiCheck(
      { url: server.url('/thrown') },
      { localTearDownScript: "throw new Error('cleanup went wrong');" },
    );
    const attempt = await executeApi(check, runContext());
    expect(server.received).toHaveLength(1);
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toContain('teardown script failed');
    expect(attempt.error).toContain('cleanup went wrong');
  });
});

describe('secrets in scripts', () => {
  it('are usable by the script and masked in the job log', async () => {
    const secret = 'hunter2-very-secret';
    const check = apiCheck(
      { url: server.url('/secret'), headers: [{ key: 'X-Pass', value: '{{PASSWORD}}' }] },
      {
        localSetupScript: "console.log('header', request.headers['X-Pass'], 'env', process.env.PASSWORD);",
        localTearDownScript: "console.error('teardown saw', process.env.PASSWORD);",
      },
    );
    const attempt = await executeApi(
      check,
      maskingContext([{ key: 'PASSWORD', value: secret, secret: true }]),
    );
    expect(attempt.error).toBeNull();
    expect(server.received[0]?.headers['x-pass']).toBe(secret);
    const log = messages(attempt);
    expect(log).toContain('header ***** env *****');
    expect(log).toContain('teardown saw *****');
    expect(JSON.stringify(apiResult(attempt).jobLog)).not.toContain(secret);
  });
});

/**
 * Every command checks its environment settings at start the same strict way: a bad value stops it with one line
 * `NAME: rule` per bad setting and exit status 2, before it runs anything.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { FAKE_KEY } from '../support/fake-control-plane.js';

const MEMORY = 'VANTAGE_SCRIPT_MEMORY_MB: must be a whole number from 64 to 1048576\n';
const PORT = 'PORT: must be a whole number from 0 to 65535\n';
/** A bad setting must stop the command at once; one that starts anyway is killed instead of hanging the test. */
const STOP = { timeoutMs: 20_000 };

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vantage-settings-'));
});

describe('a bad environment setting stops every command at start, naming the variable and its rule', () => {
  it('vantage agent', async () => {
    const agent = await runCli(['agent'], {
      ...STOP,
      env: {
        API_KEY: FAKE_KEY,
        API_URL: 'http://127.0.0.1:9',
        AGENT_DATA_DIR: dataDir,
        VANTAGE_SCRIPT_MEMORY_MB: 'lots',
      },
    });
    expect(agent).toEqual({ code: 2, stdout: '', stderr: MEMORY });
  });

  it('vantage run, before it reads a file', async () => {
    const run = await runCli(['run', 'examples/checks.yaml'], {
      ...STOP,
      env: { VANTAGE_SCRIPT_MEMORY_MB: 'lots', VANTAGE_BROWSER_VIDEO: 'always' },
    });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `${MEMORY}VANTAGE_BROWSER_VIDEO: must be one of off, on, retain-on-failure\n`,
    });
  });

  it('vantage server', async () => {
    const server = await runCli(['server'], {
      ...STOP,
      env: { PORT: 'abc', HOST: '127.0.0.1', VANTAGE_DATA_DIR: dataDir, VANTAGE_RESULT_RETENTION_DAYS: '0' },
    });
    expect(server).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PORT}VANTAGE_RESULT_RETENTION_DAYS: must be a whole number from 1 to 3650\n`,
    });
  });

  it("vantage dev: the server's, the agent's and the sandbox's settings, before anything starts", async () => {
    const dev = await runCli(['dev'], {
      ...STOP,
      env: {
        PORT: 'abc',
        HOST: '127.0.0.1',
        VANTAGE_DATA_DIR: dataDir,
        JOB_CONCURRENCY: '0',
        VANTAGE_SCRIPT_MEMORY_MB: 'lots',
      },
    });
    expect(dev).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PORT}JOB_CONCURRENCY: must be a whole number from 1 to 1000\n${MEMORY}`,
    });
  });

  it('vantage run --help lists the sandbox settings', async () => {
    const help = await runCli(['run', '--help'], STOP);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('VANTAGE_SCRIPT_MEMORY_MB');
    expect(help.stdout).toContain('VANTAGE_BROWSER_VIDEO');
  });
});

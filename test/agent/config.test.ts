import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/agent/config.js';
import { AGENT_ENV_NAMES } from '../../src/agent/env-names.js';
import { SANDBOX_ENV_NAMES } from '../../src/runtimes/index.js';

const KEY = 'pl_acme.berlin-1.Sup3rSecretKeyValue_42xyz';
const base = { API_KEY: KEY, API_URL: 'https://vantage.internal:3000/' };

function problems(env: Record<string, string>): string[] {
  const loaded = loadConfig(env);
  return loaded.ok ? [] : loaded.problems;
}

describe('agent configuration', () => {
  it('reads the key (which names account and location) and applies the documented defaults', () => {
    const loaded = loadConfig(base);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config).toMatchObject({
      apiKey: KEY,
      accountId: 'acme',
      location: 'berlin-1',
      apiUrl: 'https://vantage.internal:3000',
      jobConcurrency: 10,
      threads: 'auto',
      browserConcurrency: 1,
      healthPort: 8081,
      logLevel: 'INFO',
      externalObservability: true,
      shutdownGraceSeconds: 30,
      spoolMaxBytes: 512 * 1024 * 1024,
      runLimitScale: 1,
    });
    expect(loaded.config.dataDir).toMatch(/\.vantage-agent$/);
  });

  it('takes every setting from the environment', () => {
    const loaded = loadConfig({
      ...base,
      JOB_CONCURRENCY: '4',
      AGENT_THREADS: ' 2 ',
      BROWSER_CONCURRENCY: '0',
      AGENT_HEALTH_PORT: '9090',
      LOG_LEVEL: 'log',
      EXTERNAL_OBSERVABILITY: 'off',
      AGENT_DATA_DIR: '/var/lib/vantage',
      SHUTDOWN_GRACE_SECONDS: '120',
      AGENT_SPOOL_MAX_MB: '64',
      https_proxy: 'http://proxy.internal:3128',
      NO_PROXY: 'localhost,.internal',
    });
    expect(loaded.ok && loaded.config).toMatchObject({
      jobConcurrency: 4,
      threads: 2,
      browserConcurrency: 0,
      healthPort: 9090,
      logLevel: 'LOG',
      externalObservability: false,
      dataDir: '/var/lib/vantage',
      shutdownGraceSeconds: 120,
      spoolMaxBytes: 64 * 1024 * 1024,
      proxy: { httpsProxy: 'http://proxy.internal:3128', noProxy: 'localhost,.internal' },
    });
  });

  it('names each missing or invalid setting in one line, never echoing the key', () => {
    expect(problems({})).toEqual([
      "API_KEY: is required: the location's key, a private-location key like pl_<account>.<location>.<secret>",
      'API_URL: is required: the control plane base URL, like https://vantage.internal:3000',
    ]);
    expect(problems({ ...base, API_KEY: 'sk_live_123456' })).toEqual([
      'API_KEY: must be a private-location key like pl_<account>.<location>.<secret>',
    ]);
    expect(problems({ ...base, API_URL: 'ftp://x' })).toEqual([
      'API_URL: must be an http:// or https:// URL like https://vantage.internal:3000',
    ]);
    expect(problems({ ...base, JOB_CONCURRENCY: '0' })).toEqual([
      'JOB_CONCURRENCY: must be a whole number from 1 to 1000',
    ]);
    expect(loadConfig({ ...base, AGENT_THREADS: 'AUTO' })).toMatchObject({
      ok: true,
      config: { threads: 'auto' },
    });
    for (const bad of ['-1', 'all', '1.5', '257']) {
      expect(problems({ ...base, AGENT_THREADS: bad })).toEqual([
        'AGENT_THREADS: must be auto or a whole number from 0 to 256',
      ]);
    }
    expect(problems({ ...base, AGENT_HEALTH_PORT: '70000' })).toEqual([
      'AGENT_HEALTH_PORT: must be a whole number from 0 to 65535',
    ]);
    expect(problems({ ...base, LOG_LEVEL: 'TRACE' })).toEqual([
      'LOG_LEVEL: must be one of DEBUG, LOG, INFO, WARN, ERROR',
    ]);
    expect(problems({ ...base, EXTERNAL_OBSERVABILITY: 'maybe' })).toEqual([
      'EXTERNAL_OBSERVABILITY: must be on or off',
    ]);
    expect(problems({ ...base, HTTPS_PROXY: 'proxy:3128' })).toEqual([
      'HTTPS_PROXY: must be an http:// or https:// URL like http://proxy.internal:3128',
    ]);
    expect(problems({ ...base, NODE_EXTRA_CA_CERTS: join(tmpdir(), 'no-such-ca.pem') })).toEqual([
      'NODE_EXTRA_CA_CERTS: must name a readable PEM file of extra CA certificates',
    ]);
    expect(problems({ ...base, AGENT_RUN_LIMIT_SCALE: '2' })).toEqual([
      'AGENT_RUN_LIMIT_SCALE: must be a number above 0, at most 1',
    ]);
    // The sandbox's settings too: a mistyped one stops the agent rather than turning into a default.
    expect(problems({ ...base, VANTAGE_SCRIPT_MEMORY_MB: 'lots' })).toEqual([
      'VANTAGE_SCRIPT_MEMORY_MB: must be a whole number from 64 to 1048576',
    ]);
    expect(problems({ ...base, VANTAGE_SCRIPT_USERS: '20063-20000' })).toEqual([
      'VANTAGE_SCRIPT_USERS: must be FIRST-LAST, a range of uids above 0',
    ]);
    expect(problems({ ...base, VANTAGE_SCRIPT_USER: 'nobody' })).toEqual([
      'VANTAGE_SCRIPT_USER: must be same, or UID:GID of the one user every script runs as',
    ]);
    expect(problems({ ...base, VANTAGE_BROWSER_VIDEO: 'always' })).toEqual([
      'VANTAGE_BROWSER_VIDEO: must be one of off, on, retain-on-failure',
    ]);
    // Every bad setting at once, one line each, in the order --help lists them.
    expect(problems({ ...base, JOB_CONCURRENCY: 'ten', VANTAGE_SCRIPT_MEMORY_MB: '32' })).toEqual([
      'JOB_CONCURRENCY: must be a whole number from 1 to 1000',
      'VANTAGE_SCRIPT_MEMORY_MB: must be a whole number from 64 to 1048576',
    ]);
  });

  it('treats an empty setting as unset: the default applies', () => {
    const loaded = loadConfig({ ...base, JOB_CONCURRENCY: '', LOG_LEVEL: ' ', VANTAGE_SCRIPT_MEMORY_MB: '' });
    expect(loaded.ok && loaded.config).toMatchObject({ jobConcurrency: 10, logLevel: 'INFO' });
  });

  it('lists its own settings and the sandbox settings, each once, for --help', () => {
    expect(AGENT_ENV_NAMES.slice(0, 2)).toEqual(['API_KEY', 'API_URL']);
    expect(AGENT_ENV_NAMES).toEqual(expect.arrayContaining([...SANDBOX_ENV_NAMES, 'NODE_EXTRA_CA_CERTS']));
    expect(new Set(AGENT_ENV_NAMES).size).toBe(AGENT_ENV_NAMES.length);
  });

  it('accepts a readable NODE_EXTRA_CA_CERTS file', async () => {
    const file = join(tmpdir(), `vantage-ca-${process.pid}.pem`);
    await writeFile(file, '-----BEGIN CERTIFICATE-----\n');
    expect(problems({ ...base, NODE_EXTRA_CA_CERTS: file })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { type NodeScriptRequest, runNodeScript, scriptSettingsFromEnv } from '../../src/runtimes/index.js';

const settings = scriptSettingsFromEnv();

function snippet(code: string, extra: Partial<NodeScriptRequest> = {}) {
  return runNodeScript({
    code,
    globals: { request: { method: 'GET', url: 'http://127.0.0.1:1/', headers: {} } },
    identity: {
      checkId: 'c1',
      checkName: 'API with setup',
      checkType: 'API',
      runId: 'run-setup',
      region: 'eu-west-1',
      runtimeVersion: '2026.04',
    },
    variables: { TOKEN: 'abc' },
    runtimeId: null,
    settings,
    signal: new AbortController().signal,
    ...extra,
  });
}

describe('a setup or teardown snippet', () => {
  it('changes the request it is given, with the check variables and the runtime packages', async () => {
    const result = await snippet(`
      const { sortBy } = require('lodash');
      await new Promise((r) => setTimeout(r, 10));
      request.headers.Authorization = 'Bearer ' + process.env.TOKEN;
      request.url += sortBy(['b', 'a']).join('');
      console.log('set up for', process.env.CHECK_NAME, typeof process.env.API_KEY);
    `);
    expect(result.error).toBeNull();
    expect(result.globals).toEqual({
      request: { method: 'GET', url: 'http://127.0.0.1:1/ab', headers: { Authorization: 'Bearer abc' } },
    });
    expect(result.logs.map((l) => l.msg)).toEqual(['set up for API with setup undefined']);
  });

  it('fails with the error it throws', async () => {
    const result = await snippet(`throw new TypeError('no token');`);
    expect(result).toMatchObject({ globals: null, error: 'TypeError: no token' });
  });

  it('is stopped at its limit', async () => {
    const result = await snippet('await new Promise(() => setInterval(() => {}, 1000));', { timeoutMs: 500 });
    expect(result).toMatchObject({ globals: null, error: 'the script did not finish in time' });
  });
});

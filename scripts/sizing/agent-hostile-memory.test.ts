/**
 * Memory a hostile response costs a real agent (issue 11): a `vantage agent` process against the test control
 * plane, API checks against a 2-byte body (baseline), one and ten gzip bombs, and ten endless bodies; prints the
 * agent's peak RSS (VmHWM) over its RSS at start. A measurement, not a test:
 * `npx vitest run -c scripts/sizing/vitest.config.ts --root .`
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { AgentProcess } from '../../test/support/agent-process.js';
import { startHostileTarget } from '../../test/support/hostile-target.js';
import { apiCheckAt, completed, FAST_RUNS, trigger } from '../../test/support/runs.js';
import { createApiCheck, createLocation, startTestServer } from '../../test/support/server.js';

it("measures the agent's peak memory per hostile response", async () => {
  const target = await startHostileTarget();
  const server = await startTestServer('pglite', { runs: FAST_RUNS });
  for (const [path, n] of [
    ['/small', 10],
    ['/gzip', 1],
    ['/gzip', 10],
    ['/endless', 10],
  ] as const) {
    const location = await createLocation(server, `mem${path.slice(1)}${n}`);
    const agent = new AgentProcess({
      API_KEY: location.key,
      API_URL: server.url,
      AGENT_HEALTH_PORT: '0',
      AGENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'mem-')),
      LOG_LEVEL: 'WARN',
    });
    await new Promise((r) => setTimeout(r, 5000));
    const status = () => readFileSync(`/proc/${agent.pid}/status`, 'utf8');
    const mib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())?.[1]) / 1024;
    const start = mib('VmRSS');
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(
        await createApiCheck(
          server,
          apiCheckAt(target.url(`${path}?i=${i}`), { privateLocations: [location.slugName] }),
        ),
      );
    const sessions = await trigger(server, ids);
    for (const s of sessions) await completed(server, s, 120_000);
    await new Promise((r) => setTimeout(r, 2000));
    console.log(
      `MEM ${path} x${n}: agent RSS at start ${start.toFixed(0)} MiB, peak ${mib('VmHWM').toFixed(0)} MiB, +${(mib('VmHWM') - start).toFixed(0)} MiB`,
    );
    agent.kill('SIGKILL');
    await agent.exited;
  }
  await server.close();
  await target.close();
}, 600_000);

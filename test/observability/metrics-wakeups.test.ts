import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT } from '../support/vantage-command.js';

/**
 * A process that holds the agent's metrics and nothing else to do: how often its event loop goes round in a second
 * (libuv's own count), once the metrics have loaded.
 */
const SCRIPT = `
import { performance } from 'node:perf_hooks';
import { createAgentMetrics } from '${ROOT}src/observability/metrics.ts';
const metrics = createAgentMetrics();
metrics.runFinished('API', 'PASSED', 0.01);
await metrics.scrape();
setTimeout(() => {
  const before = performance.nodeTiming.uvMetricsInfo.loopCount;
  setTimeout(() => {
    console.log(JSON.stringify({ loops: performance.nodeTiming.uvMetricsInfo.loopCount - before }));
    process.exit(0);
  }, 1000);
}, 300);
`;

it("does not wake an idle agent's event loop 100 times a second to sample its delay", () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  const { loops } = JSON.parse(child.stdout) as { loops: number };
  // prom-client's default samples every 10 ms: about 100 rounds a second. At 100 ms: about 10, plus the timers here.
  expect(loops).toBeLessThan(30);
});

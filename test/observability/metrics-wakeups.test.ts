import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT } from '../support/vantage-command.js';

/**
 * A process that holds the agent's metrics and nothing else to do: how often its event loop goes round in a second
 * (libuv's own count) once a run was counted, and again once the metrics were scraped.
 */
const SCRIPT = `
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAgentMetrics } from '${ROOT}src/observability/metrics.ts';
const loops = async () => {
  await sleep(300);
  const before = performance.nodeTiming.uvMetricsInfo.loopCount;
  await sleep(1000);
  return performance.nodeTiming.uvMetricsInfo.loopCount - before;
};
const metrics = createAgentMetrics();
metrics.runFinished('API', 'PASSED', 0.01);
const counted = await loops();
const { text } = await metrics.scrape();
const scraped = await loops();
console.log(JSON.stringify({ counted, scraped, lag: /^nodejs_eventloop_lag_p99_seconds /m.test(text) }));
`;

it("does not wake an idle agent's event loop to sample its delay until scraped, and then 10 times a second", () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  const { counted, scraped, lag } = JSON.parse(child.stdout) as Record<string, number | boolean>;
  // The script's own timers go round a few times; prom-client's default sampling (every 10 ms) about 100.
  expect(counted).toBeLessThan(8);
  expect(scraped).toBeLessThan(30);
  expect(lag).toBe(true);
});

/**
 * Memory and time of a trivial BROWSER run: a script that opens a local page and checks its heading, run the
 * way the agent runs it (runtime 2026.04, Debian's Chromium, sandboxed). Time is the wall time of one run,
 * from the executor's call to its result (runner start, browser start, page, trace, clean-up); memory is the
 * largest sum of the proportional set sizes (PSS) of the run's processes, sampled every 50 ms.
 * Run: npx tsx bench/browser-run.ts [runs]
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { browserCheckSchema } from '../src/checks/index.js';
import { executeBrowser } from '../src/executors/browser/index.js';
import { discardArtifacts } from '../src/executors/script/settle-artifacts.js';
import { benchContext, median, quantile } from './support.js';

const RUNS = Number(process.argv[2] ?? 5);
/** Goals on the 2-core machine: a trivial run within 10 s and 1 GiB. */
const GOAL_MS = 10_000;
const GOAL_MB = 1024;

const server = createServer((_req, res) => res.setHeader('content-type', 'text/html').end('<h1>Hello</h1>'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

/** Sum of the PSS of the processes whose environment holds `entry`, in MiB. */
async function memoryOf(entry: string): Promise<number> {
  let kb = 0;
  for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (!`\0${environ}`.includes(`\0${entry}\0`)) continue;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  }
  return kb / 1024;
}

const times: number[] = [];
const peaks: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const tag = `bench-${i}-${Date.now()}`;
  const check = browserCheckSchema.parse({
    checkType: 'BROWSER',
    name: 'bench',
    script: `import { test, expect } from '@playwright/test';
test('home', async ({ page }) => {
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Hello');
});`,
    environmentVariables: [
      { key: 'SITE', value: origin },
      { key: 'BENCH_TAG', value: tag },
    ],
  });
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await memoryOf(`BENCH_TAG=${tag}`));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const context = benchContext({ variables: check.environmentVariables ?? [] });
  const begun = performance.now();
  const attempt = await executeBrowser(check, context);
  const ms = performance.now() - begun;
  sampling = false;
  await sampler;
  await discardArtifacts(attempt.artifacts);
  if (attempt.hasErrors || attempt.hasFailures) throw new Error(`the run failed: ${attempt.error}`);
  times.push(ms);
  peaks.push(peak);
  console.log(`run ${i + 1}: ${Math.round(ms)} ms, peak ${Math.round(peak)} MiB`);
}
server.close();

const p50 = median(times);
const p90 = quantile(times, 0.9);
const memory = Math.max(...peaks);
console.log(`time per run: median ${Math.round(p50)} ms, p90 ${Math.round(p90)} ms (goal ${GOAL_MS} ms)`);
console.log(
  `memory of a run: peak ${Math.round(memory)} MiB PSS, median ${Math.round(median(peaks))} MiB (goal ${GOAL_MB} MiB)`,
);
process.exitCode = p50 <= GOAL_MS && memory <= GOAL_MB ? 0 : 1;

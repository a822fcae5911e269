/**
 * Memory and time of a trivial BROWSER run: a script that opens a local page and checks its heading, run the
 * way the agent runs it (runtime 2026.04, Debian's Chromium, sandboxed). Time is the wall time of one run,
 * from the executor's call to its result (runner start, browser start, page, trace, clean-up); memory is the
 * largest sum of the proportional set sizes (PSS) of the run's processes, sampled every 50 ms.
 * The anchor: the same test run by bare Playwright (`playwright test` of the same runtime, same Chromium and
 * launch flags, trace on, one worker), measured the same way; the difference is what the agent's runner adds.
 * Run: npx tsx bench/browser-run.ts [runs]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { browserCheckSchema } from '../src/checks/index.js';
import { executeBrowser } from '../src/executors/browser/index.js';
import { discardArtifacts } from '../src/executors/script/settle-artifacts.js';
import { CHROMIUM_ARGS, findChromium, resolveRuntime, scriptSettingsFromEnv } from '../src/runtimes/index.js';
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

const SCRIPT = `import { test, expect } from '@playwright/test';
test('home', async ({ page }) => {
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Hello');
});`;

/** Runs `runOnce` RUNS times, each tagged so that its processes are found; wall time and peak PSS of each. */
async function measure(label: string, runOnce: (tag: string) => Promise<void>) {
  const times: number[] = [];
  const peaks: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const tag = `bench-${label}-${i}-${Date.now()}`;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await memoryOf(`BENCH_TAG=${tag}`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const begun = performance.now();
    await runOnce(tag);
    const ms = performance.now() - begun;
    sampling = false;
    await sampler;
    times.push(ms);
    peaks.push(peak);
    console.log(`${label} run ${i + 1}: ${Math.round(ms)} ms, peak ${Math.round(peak)} MiB`);
  }
  return {
    p50: median(times),
    p90: quantile(times, 0.9),
    peak: Math.max(...peaks),
    peakMedian: median(peaks),
  };
}

const agent = await measure('agent', async (tag) => {
  const check = browserCheckSchema.parse({
    checkType: 'BROWSER',
    name: 'bench',
    script: SCRIPT,
    environmentVariables: [
      { key: 'SITE', value: origin },
      { key: 'BENCH_TAG', value: tag },
    ],
  });
  const context = benchContext({ variables: check.environmentVariables ?? [] });
  const attempt = await executeBrowser(check, context);
  await discardArtifacts(attempt.artifacts);
  if (attempt.hasErrors || attempt.hasFailures) throw new Error(`the run failed: ${attempt.error}`);
});

const settings = scriptSettingsFromEnv();
const runtime = resolveRuntime(null, settings.runtimesDir);
if (runtime instanceof Error) throw runtime;
const bare = await measure('bare Playwright', async (tag) => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-bare-'));
  await symlink(runtime.nodeModules, join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'home.spec.mjs'), SCRIPT);
  const use = {
    headless: true,
    trace: 'on',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: findChromium(settings.chromiumPath), args: CHROMIUM_ARGS },
  };
  const config = {
    testDir: '.',
    workers: 1,
    retries: 0,
    reporter: [['json', { outputFile: 'report.json' }]],
    use,
  };
  await writeFile(join(dir, 'playwright.config.js'), `module.exports = ${JSON.stringify(config)};`);
  const child = spawn(process.execPath, [runtime.playwrightCli, 'test', '--config', 'playwright.config.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, SITE: origin, BENCH_TAG: tag },
    stdio: 'ignore',
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`bare Playwright failed with exit code ${code}`);
});
server.close();

const ms = (value: number) => `${Math.round(value)} ms`;
const mib = (value: number) => `${Math.round(value)} MiB`;
console.log(`time per run: median ${ms(agent.p50)}, p90 ${ms(agent.p90)} (goal ${GOAL_MS} ms)`);
console.log(
  `memory of a run: peak ${mib(agent.peak)} PSS, median ${mib(agent.peakMedian)} (goal ${GOAL_MB} MiB)`,
);
console.log(
  `anchor, bare Playwright: median ${ms(bare.p50)}, p90 ${ms(bare.p90)}; peak ${mib(bare.peak)}, median ${mib(bare.peakMedian)}`,
);
console.log(
  `the agent's runner adds: ${ms(agent.p50 - bare.p50)} a run (median), ${mib(agent.peakMedian - bare.peakMedian)} (median peak)`,
);
process.exitCode = agent.p50 <= GOAL_MS && agent.peak <= GOAL_MB ? 0 : 1;

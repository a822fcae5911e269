/**
 * The web app's quality bars that are speeds and weights (issue 16): a checks page of 1,000 checks in Debian's
 * Chromium, from navigation to the 1,000th row shown (each check with its status and sparkline, as the page reads
 * them), and the JavaScript and CSS a first load transfers (compressed, as sent). The server is the real one,
 * in process, on PGlite, with the web app built by `npm run build:web`.
 * Goals: the page in under 1 s; a first load of at most 200 KB.
 * Run: npx tsx bench/web-app.ts   (BENCH_CHECKS, default 1000)
 */
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { findChromium } from '../src/runtimes/chromium.js';
import { copiesOfCheck } from '../test/support/bulk-checks.js';
import { createApiCheck, startTestServer } from '../test/support/server.js';
import { ROOT } from '../test/support/vantage-command.js';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 1000);
const RUNS = 5;
execFileSync(process.execPath, ['scripts/build-web.mjs'], { cwd: ROOT, stdio: 'inherit' });
const chromiumPath = findChromium(process.env.CHROMIUM_PATH ?? null);
if (!chromiumPath) {
  console.log('no Chromium (apt-get install chromium): not measured');
  process.exit(2);
}

const server = await startTestServer('pglite');
const first = await createApiCheck(server, {
  name: 'Checkout API',
  activated: false,
  tags: ['shop'],
  request: { url: 'http://127.0.0.1:9/health', method: 'GET' },
});
await copiesOfCheck(server.server.runs.db, server.accountId, first, CHECKS - 1);
const browser = await chromium.launch({ executablePath: chromiumPath });
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel('API key').fill(server.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/checks`);

  let transferred = 0;
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // A cold load each time: nothing from the cache.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const started = Date.now();
    await page.goto(`${server.url}/checks`);
    await page
      .locator('.check-list > li')
      .nth(CHECKS - 1)
      .waitFor();
    times.push(Date.now() - started);
    // Compressed bodies of the scripts and styles this load fetched (the cache is off: every one of them).
    transferred = (await page.evaluate(
      "performance.getEntriesByType('resource').filter((e) => /\\.(js|css)$/.test(e.name)).reduce((sum, e) => sum + e.encodedBodySize, 0)",
    )) as number;
    if (process.env.BENCH_DETAIL) {
      const entries = (await page.evaluate(
        "performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd), e.encodedBodySize])",
      )) as [string, number, number, number][];
      console.log(
        entries.map((e) => e.join(' ')).join('\n'),
        '\nrendered at',
        Math.round((await page.evaluate('performance.now()')) as number),
      );
    }
    await cdp.detach();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  console.log(
    `checks page of ${CHECKS} checks: ${times.join(', ')} ms (median ${median} ms); goal under 1000 ms`,
  );
  console.log(
    `a first load transferred ${(transferred / 1024).toFixed(1)} KB of JavaScript and CSS; goal at most 200 KB`,
  );
  process.exitCode = median < 1000 && transferred <= 200 * 1024 ? 0 : 1;
} finally {
  await browser.close();
  await server.close();
}

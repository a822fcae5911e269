/**
 * Memory a hostile response costs `vantage run` (issue 11): peak RSS of one API check against an endless body and
 * against gzip, brotli and deflate bombs (1 GiB of zeros each), and of ten at once, over the peak of a run against
 * a 2-byte body. Goal: at most 100 MiB over that baseline per hostile run. Needs GNU time (/usr/bin/time).
 * Run: npx tsx bench/hostile-bodies.ts
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HOSTILE_PATHS, startHostileTarget } from '../test/support/hostile-target.js';

const GOAL_MIB = 100;
const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
const target = await startHostileTarget();
const dir = mkdtempSync(join(tmpdir(), 'vantage-hostile-'));

/** Peak RSS in MiB of `vantage run` over these URLs, all at once (run beside the target, which serves them). */
async function peakMiB(name: string, urls: string[], reporter: 'list' | 'json'): Promise<number> {
  const file = join(dir, `${name}.json`);
  const checks = urls.map((url, i) => ({
    checkType: 'API',
    name: `${name} ${i}`,
    request: { url, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
  }));
  writeFileSync(file, JSON.stringify({ checks }));
  const run = await promisify(execFile)(
    '/usr/bin/time',
    [
      '-f',
      '%M',
      process.execPath,
      `${root}dist/cli/main.js`,
      'run',
      file,
      '--concurrency',
      '10',
      '--reporter',
      reporter,
    ],
    { encoding: 'utf8', maxBuffer: 1024 ** 3 },
  ).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? '' }));
  const kb = Number(run.stderr.trim().split('\n').at(-1));
  if (!Number.isFinite(kb)) throw new Error(`no peak measured: ${run.stderr.slice(-500)}`);
  return kb / 1024;
}

let missed = false;
for (const reporter of ['list', 'json'] as const) {
  const baseline = await peakMiB('baseline', [target.url('/small')], reporter);
  console.log(`--reporter ${reporter}: baseline ${baseline.toFixed(0)} MiB (a 404 with a 2-byte body)`);
  for (const path of HOSTILE_PATHS) {
    const one = (await peakMiB(`one${path.slice(1)}`, [target.url(path)], reporter)) - baseline;
    const tenUrls = Array.from({ length: 10 }, () => target.url(path));
    const ten = (await peakMiB(`ten${path.slice(1)}`, tenUrls, reporter)) - baseline;
    const perRunOfTen = ten / 10;
    const ok = reporter !== 'list' || (one <= GOAL_MIB && perRunOfTen <= GOAL_MIB);
    if (!ok) missed = true;
    console.log(
      `  ${path.padEnd(9)} one: +${one.toFixed(0)} MiB   ten at once: +${ten.toFixed(0)} MiB (+${perRunOfTen.toFixed(0)} a run)${reporter === 'list' ? (ok ? '   ok' : `   over ${GOAL_MIB} MiB`) : ''}`,
    );
  }
}
await target.close();
process.exitCode = missed ? 1 : 0;

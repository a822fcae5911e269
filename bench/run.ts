/**
 * `npm run bench`: every benchmark, one after another, each in a process of its own so none warms the next.
 * A benchmark that misses its goal exits non-zero; the run goes on and reports them all at the end.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = [
  'http-vs-curl.ts',
  'blackbox.ts',
  'tcp-connect.ts',
  'icmp-vs-fping.ts',
  'browser-run.ts',
  'hostile-bodies.ts',
  'store-growth.ts',
  'pglite-vacuum.ts',
  'scheduler-tick.ts',
  'result-ingest.ts',
  'pglite-answer.ts',
  'spool-commit.ts',
  'agent-ingest.ts',
  'paced-checks.ts',
  'control-plane.ts',
  'web-app.ts',
  'startup.ts',
];
const here = fileURLToPath(new URL('.', import.meta.url));
const missed: string[] = [];
for (const name of BENCHMARKS) {
  console.log(`\n── ${name}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${here}${name}`], { stdio: 'inherit' });
  if (run.status !== 0) missed.push(name);
}
console.log(
  missed.length === 0 ? '\nevery benchmark met its goal' : `\nmissed their goal: ${missed.join(', ')}`,
);
process.exitCode = missed.length === 0 ? 0 : 1;

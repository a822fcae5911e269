/**
 * The executors alone, in a process of their own (so that the target's CPU is not counted): runs API checks of
 * `<url-prefix>0` … `<url-prefix><checks - 1>` `<runs>` times in all, `<concurrency>` at once, after a warm-up round,
 * and prints `{"cpuMsPerRun": …}`: what the check itself costs, with nothing of the agent around it.
 * Run by bench/agent-ingest.ts: node --import tsx bench/agent-ingest/checks-alone.ts <url-prefix> <checks> <runs> <concurrency>
 */
import { parseCheck, VariableSet } from '../../src/checks/index.js';
import { defaultExecutors } from '../../src/executors/registry.js';
import { runAttempt } from '../../src/executors/run/attempt.js';
import { apiCheck } from './check.js';

const [prefix = '', checkCount = '100', runCount = '1000', concurrency = '100'] = process.argv.slice(2);

const checks = Array.from({ length: Number(checkCount) }, (_, i) => {
  const parsed = parseCheck(apiCheck(`${prefix}${i}`));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
});

async function runAll(runs: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (next < runs) {
        const check = checks[next++ % checks.length] as (typeof checks)[number];
        await runAttempt(check, {
          executors: defaultExecutors,
          variables: new VariableSet(),
          mask: (text) => text,
          runLocation: 'bench',
          clientCertificates: [],
        });
      }
    }),
  );
}

await runAll(checks.length);
const before = process.cpuUsage();
await runAll(Number(runCount));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMsPerRun: (used.user + used.system) / 1000 / Number(runCount) }));

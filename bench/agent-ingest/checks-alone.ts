/**
 * The executors alone, in a process of their own (so that the target's CPU is not counted): runs API checks of
 * `<url-prefix>0` … `<url-prefix><checks - 1>` `<runs>` times in all, `<concurrency>` at once, after as many runs to warm up
 * (as the agent's second burst in bench/agent-ingest.ts follows its first),
 * and prints `{"cpuMsPerRun": …}`: what the check itself costs, with nothing of the agent around it.
 * Run by bench/agent-ingest.ts: node --import tsx bench/agent-ingest/checks-alone.ts <url-prefix> <checks> <runs> <concurrency>
 */
import { parsedApiCheck, runCheckAlone } from './check.js';

const [prefix = '', checkCount = '100', runCount = '1000', concurrency = '100'] = process.argv.slice(2);

const checks = Array.from({ length: Number(checkCount) }, (_, i) => parsedApiCheck(`${prefix}${i}`));

async function runAll(runs: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (next < runs) {
        const check = checks[next++ % checks.length] as (typeof checks)[number];
        await runCheckAlone(check);
      }
    }),
  );
}

await runAll(Number(runCount));
const before = process.cpuUsage();
await runAll(Number(runCount));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMsPerRun: (used.user + used.system) / 1000 / Number(runCount) }));

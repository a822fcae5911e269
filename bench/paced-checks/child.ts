/**
 * One row of bench/paced-checks.ts, in a process of its own (so that the target's CPU is not counted): starts one
 * `<what>` every 1/`<rate>` s, `<rate>` × `<seconds>` in all, after WARM_UP_RUNS of warm-up (so that V8 has
 * compiled what runs: docs/agent.md, "Warm-up and the floor at a low rate"), and prints
 * `{"cpuMsPerRun": …, "late": …}`: this process's CPU (all its threads) over the paced part, per run.
 * Run: node --import tsx bench/paced-checks/child.ts <wake|socket|check> <target-url> <rate> <seconds>
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PACED_RUNS, type PacedRun, pacedRun } from './runs.js';

const [what = 'check', url = '', rateText = '30', secondsText = '20'] = process.argv.slice(2);
if (!(PACED_RUNS as readonly string[]).includes(what)) {
  throw new Error(`what: must be one of ${PACED_RUNS.join(', ')} (got ${what})`);
}
const one = pacedRun(what as PacedRun, url);
const rate = Number(rateText);
const total = rate * Number(secondsText);

/** Run 10 at a time before the measure: enough for V8's compilers to have done their work at a steady rate. */
const WARM_UP_RUNS = 5000;
let warmed = 0;
await Promise.all(
  Array.from({ length: 10 }, async () => {
    while (warmed < WARM_UP_RUNS) await one(warmed++);
  }),
);
await sleep(2000);
const before = process.cpuUsage();
const startedAt = performance.now();
const pending: Promise<unknown>[] = [];
let late = 0;
for (let i = 0; i < total; i++) {
  const dueIn = startedAt + (i * 1000) / rate - performance.now();
  if (dueIn > 0) await sleep(dueIn);
  else if (dueIn < -100) late++;
  pending.push(one(i));
}
await Promise.all(pending);
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMsPerRun: (used.user + used.system) / 1000 / total, late }));

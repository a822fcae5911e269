/**
 * One row of bench/paced-checks.ts, in a process of its own (so that the target's CPU is not counted): starts one
 * `<what>` every 1/`<rate>` s, `<rate>` × `<seconds>` in all, after WARM_UP_RUNS of warm-up (so that V8 has
 * compiled what runs: docs/agent.md, "Warm-up and the floor at a low rate"), and prints
 * `{"cpuMsPerRun": …, "late": …}`: this process's CPU (all its threads) over the paced part, per run.
 * Run: node --import tsx bench/paced-checks/child.ts <wake|socket|check> <target-url> <rate> <seconds>
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parsedApiCheck, runCheckAlone } from '../agent-ingest/check.js';

const [what = 'check', url = '', rateText = '30', secondsText = '20'] = process.argv.slice(2);
const rate = Number(rateText);
const total = rate * Number(secondsText);
const target = new URL(url);
const checks = Array.from({ length: 100 }, (_, i) => parsedApiCheck(`${url}paced-${i}`));

/** A GET on a connection of its own, as a check makes one, by node:net alone: no HTTP client, no result. */
function bareSocket(i: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.on('connect', () =>
      socket.write(`GET /socket-${i} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', () => {});
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

const runs: Record<string, (i: number) => Promise<unknown>> = {
  wake: () => Promise.resolve(),
  socket: bareSocket,
  check: (i) => runCheckAlone(checks[i % checks.length] as (typeof checks)[number]),
};
const one = runs[what];
if (!one) throw new Error(`what: must be one of ${Object.keys(runs).join(', ')} (got ${what})`);

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

/**
 * Round-trip times of the ICMP executor against fping's, on loopback: `npx tsx bench/icmp-vs-fping.ts`.
 * Both send 20 echo requests of 64 bytes (56 of data) to 127.0.0.1, 500 ms apart (the executor's interval;
 * fping's own default period is 1000 ms). The goal: min/avg/max within 1 ms of fping's.
 *
 * The executor runs twice. Its first run in a process pays once for V8 compiling the send and receive paths
 * (about half a millisecond more on the first reply); an agent runs checks for days, so the second, warm run
 * is the one held to the goal. Both are printed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { icmpCheckSchema } from '../src/checks/index.js';
import { executeIcmp, probeIcmpCapability } from '../src/executors/icmp/index.js';
import { benchContext } from './support.js';

const COUNT = 20;
const TARGET = '127.0.0.1';
const GOAL_MS = 1;

interface Summary {
  min: number;
  avg: number;
  max: number;
}

const summarize = (rtts: readonly number[]): Summary => ({
  min: Math.min(...rtts),
  avg: rtts.reduce((sum, rtt) => sum + rtt, 0) / rtts.length,
  max: Math.max(...rtts),
});

async function executorRtts(): Promise<number[]> {
  const check = icmpCheckSchema.parse({
    name: 'bench',
    checkType: 'ICMP',
    request: { hostname: TARGET, pingCount: COUNT },
  });
  const attempt = await executeIcmp(check, benchContext());
  if (!('icmpCheckResult' in attempt.detail)) throw new Error('not an ICMP result');
  const { response, requestError } = attempt.detail.icmpCheckResult;
  if (requestError) throw new Error(requestError);
  return (response?.pingResults ?? []).flatMap((ping) => (ping.rtt === null ? [] : [ping.rtt]));
}

/** `fping -C` prints one line per target on stderr: `127.0.0.1 : 0.04 0.05 - …` (`-` for a lost reply). */
async function fpingRtts(): Promise<number[] | null> {
  try {
    const { stderr } = await promisify(execFile)('fping', ['-C', String(COUNT), '-q', '-p', '500', TARGET]);
    const times = stderr.split(':')[1] ?? '';
    return times
      .trim()
      .split(/\s+/)
      .filter((t) => t !== '-')
      .map(Number);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const row = (name: string, s: Summary, received: number) =>
  `${name.padEnd(10)} min ${s.min.toFixed(3)}  avg ${s.avg.toFixed(3)}  max ${s.max.toFixed(3)} ms  (${received}/${COUNT} replies)`;

const capability = await probeIcmpCapability();
if (!capability.available) {
  console.log(`cannot run: ${capability.reason}`);
  process.exit(1);
}

const KEYS = ['min', 'avg', 'max'] as const;

/** Prints our figures minus fping's; true when each is within the goal. */
function compare(name: string, ours: Summary, theirs: Summary): boolean {
  const diff = (key: keyof Summary) => ours[key] - theirs[key];
  const diffs = KEYS.map((key) => `${key} ${diff(key) >= 0 ? '+' : ''}${diff(key).toFixed(3)}`);
  console.log(`${name} − fping: ${diffs.join('  ')} ms`);
  return KEYS.every((key) => Math.abs(diff(key)) <= GOAL_MS);
}

// One after another, so that no measurement disturbs another.
const cold = await executorRtts();
const warm = await executorRtts();
const theirs = await fpingRtts();
console.log(`${COUNT} echo requests to ${TARGET}, 500 ms apart`);
console.log(row('cold run', summarize(cold), cold.length));
console.log(row('warm run', summarize(warm), warm.length));
if (theirs === null) {
  console.log('fping      missing: install it (apt-get install -y fping) to compare');
} else {
  console.log(row('fping', summarize(theirs), theirs.length));
  compare('cold run', summarize(cold), summarize(theirs));
  const within = compare('warm run', summarize(warm), summarize(theirs));
  console.log(
    within ? `warm run within ${GOAL_MS} ms of fping` : `warm run NOT within ${GOAL_MS} ms of fping`,
  );
  process.exitCode = within ? 0 : 1;
}

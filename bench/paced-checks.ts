/**
 * What a run costs at a steady rate, with nothing of the agent around it (issue 17's agent cost at 30 runs/s): the
 * CPU per run of a process that starts one every 1/rate s of
 *   wake:   nothing (a timer wakes the process, that is all),
 *   socket: a GET on a connection of its own by node:net alone (connect, write, read, close),
 *   check:  an API check (GET) run by the executors alone,
 * against a local target in this process, at 30 and 300 runs/s. On a virtual machine each wake-up of an idle
 * process costs the process CPU of its own, so the same work costs more per run at a low rate (docs/agent.md,
 * "Warm-up and the floor at a low rate"). No goal: it shows what a run costs at a low rate before the agent adds anything.
 * Run: npx tsx bench/paced-checks.ts [seconds per row, default 20]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startCountingTarget } from '../test/support/counting-target.js';
import { PACED_RUNS } from './paced-checks/runs.js';

const SECONDS = Number(process.argv[2] ?? 20);
const RATES = [30, 300];
const child = fileURLToPath(new URL('paced-checks/child.ts', import.meta.url));

async function row(what: string, url: string, rate: number): Promise<{ cpuMsPerRun: number; late: number }> {
  const run = spawn(process.execPath, ['--import', 'tsx', child, what, url, String(rate), String(SECONDS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  run.stdout.on('data', (chunk: Buffer) => {
    out += chunk;
  });
  const [code] = await once(run, 'exit');
  if (code !== 0) throw new Error(`paced-checks/child.ts ${what} ${rate} exited with ${code}`);
  return JSON.parse(out);
}

const target = await startCountingTarget();
const lines = [
  `| run | ${RATES.map((rate) => `CPU per run at ${rate}/s`).join(' | ')} |`,
  `|---|${'---|'.repeat(RATES.length)}`,
];
try {
  for (const what of PACED_RUNS) {
    const cells: string[] = [];
    for (const rate of RATES) {
      const measured = await row(what, target.url('/'), rate);
      cells.push(
        `${measured.cpuMsPerRun.toFixed(2)} ms${measured.late > 0 ? ` (${measured.late} started late)` : ''}`,
      );
    }
    lines.push(`| ${what} | ${cells.join(' | ')} |`);
    console.error(`  ${what} measured`);
  }
} finally {
  await target.close();
}
console.log(`\n${SECONDS} s per row, Node.js ${process.version}\n\n${lines.join('\n')}`);

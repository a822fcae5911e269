/**
 * The control plane's capacity (issue 14): a real `vantage server` (built, from dist/) on PGlite or PostgreSQL,
 * N API checks every 10 s on one private location, and one real `vantage agent` (JOB_CONCURRENCY=100) against a
 * local target that notes each request's arrival; or in-bench agents that answer every run at once, on one or two
 * replicas; or no agent and 10,000 checks that are seldom due (--idle). Over a window after a warm-up: runs/s
 * due, the share of (check, slot) pairs whose run arrived, lag p50/p99 (arrival minus slot start), results stored
 * per second, CPU of the servers, their PostgreSQL backends and the agent, RSS, and control-plane CPU per run.
 * Goals: issue 14's targets; a row that misses one makes the exit status 1.
 * Run: node --import tsx bench/control-plane.ts --help
 */
import { execFileSync } from 'node:child_process';
import { ROOT } from '../test/support/vantage-command.js';
import { type BenchOptions, parseOptions, USAGE, warmupText } from './control-plane/options.js';
import { loadAverage } from './control-plane/proc.js';
import { profileTable } from './control-plane/profile.js';
import { type Row, runScenario } from './control-plane/scenario.js';
import { cpuTable, goals, resultTable } from './control-plane/table.js';

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (options.build) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });

console.log(
  `warm-up ${warmupText(options)}, window ${options.windowS} s, drain ${options.drainS} s; load average now ${loadAverage()}`,
);
const rows: Row[] = [];
const failed: string[] = [];
for (const scenario of options.scenarios) {
  try {
    const row = await runScenario(scenario, options);
    rows.push(row);
    // Each row as soon as it is measured, so that a run stopped later still leaves it.
    console.log(resultTable([row]).split('\n').at(-1));
  } catch (error) {
    const what = `${scenario.store} N=${scenario.checks} ${scenario.mode} ×${scenario.replicas}`;
    console.error(`  ${what} failed: ${(error as Error).stack ?? error}`);
    failed.push(what);
  }
}

console.log(
  `\n${resultTable(rows)}\n\nWhere the CPU went (percent of one core over the window):\n\n${cpuTable(rows)}\n`,
);
for (const row of rows) {
  for (const note of row.notes) console.log(`note (${row.scenario.store} N=${row.scenario.checks}): ${note}`);
}
for (const row of rows) {
  for (const { label, summary } of row.profiles) {
    const which = `${row.scenario.store} N=${row.scenario.checks} ${row.scenario.mode}, ${label}`;
    console.log(`\n${profileTable(which, summary)}`);
  }
}
const judged = goals(rows);
for (const goal of judged) console.log(`${goal.met === null ? '–' : goal.met ? '✓' : '✗'} ${goal.what}`);
if (failed.length > 0) console.log(`could not measure: ${failed.join('; ')}`);
process.exitCode = failed.length > 0 ? 2 : judged.some((g) => g.met === false) ? 1 : 0;

import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { expect, it } from 'vitest';
import { startUpFlagsLeftToUs, userSettingsOverMain } from '../../src/cli/start-up-mode.js';
import { version } from '../../src/version.js';
import { AgentProcess } from '../support/agent-process.js';
import { FAKE_KEY } from '../support/fake-control-plane.js';
import { freePort } from '../support/server-process.js';
import { ROOT } from '../support/vantage-command.js';

/**
 * A hot function run until V8 would optimize it, while the command loads, and another after: what V8 then reports
 * about each (by name: other code, compiled in the background, may finish compiling at any time).
 */
const SCRIPT = `
import { enterStartUpMode, leaveStartUpMode } from '${ROOT}src/cli/start-up-mode.ts';
function hotWhileLoading(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function hotAfterwards(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
enterStartUpMode();
for (let i = 0; i < 20000; i++) hotWhileLoading(200);
leaveStartUpMode();
// A second of it: time for a background compilation to finish on a loaded machine.
for (const until = Date.now() + 1000; Date.now() < until; ) hotAfterwards(200);
console.log('DONE');
`;

/** Whether V8 reports having compiled `name` with one of `tiers` (by default either optimising compiler). */
const optimized = (trace: string, name: string, tiers = 'TURBOFAN|MAGLEV') =>
  new RegExp(`completed (optimizing|compiling) [^\\n]*<JSFunction ${name} [^\\n]*(${tiers})`).test(trace);

/**
 * `script` run by node with a V8 trace flag (and `nodeFlags`, `env`); its output. The script is a file, not --eval:
 * the start-up mode reads node's arguments for the user's V8 settings, and would take the script's words for some.
 */
function traced(
  traceFlag: string,
  script: string,
  nodeFlags: string[] = [],
  env: NodeJS.ProcessEnv = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'start-up-mode-'));
  try {
    writeFileSync(join(dir, 'script.mjs'), script);
    const child = spawnSync(
      process.execPath,
      [...nodeFlags, traceFlag, '--import', 'tsx', join(dir, 'script.mjs')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      },
    );
    expect(child.status, child.stderr).toBe(0);
    return child.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('optimizes nothing while the command loads, and optimizes hot code again once it has loaded', () => {
  const trace = traced('--trace-opt', SCRIPT);
  expect(trace).toContain('DONE');
  expect(optimized(trace, 'hotWhileLoading')).toBe(false);
  expect(optimized(trace, 'hotAfterwards')).toBe(true);
});

/** The same, leaving the mode as the agent does: TurboFan kept off. */
const AGENT_SCRIPT = SCRIPT.replace('leaveStartUpMode();', 'leaveStartUpMode({ turbofan: false });');

it('leaves the mode with Maglev alone for the agent, unless the user turned TurboFan on', () => {
  const trace = traced('--trace-opt', AGENT_SCRIPT);
  expect(trace).toContain('DONE');
  expect(optimized(trace, 'hotAfterwards', 'MAGLEV')).toBe(true);
  expect(optimized(trace, 'hotAfterwards', 'TURBOFAN')).toBe(false);
  const byUser = traced('--trace-opt', AGENT_SCRIPT, ['--turbofan']);
  expect(optimized(byUser, 'hotAfterwards', 'TURBOFAN')).toBe(true);
});

/** Garbage left by loading, collected the way an agent does once it has started; then what the heap holds. */
const COLLECT_SCRIPT = `
import { runInNewContext } from 'node:vm';
import { collectStartUpGarbage } from '${ROOT}src/cli/start-up-mode.ts';
let loaded = Array.from({ length: 200000 }, (_, i) => ({ i, text: 'module ' + i }));
loaded = undefined;
const before = process.memoryUsage().heapUsed;
collectStartUpGarbage();
const after = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ before, after, gcHere: typeof gc, gcInNewContexts: runInNewContext('typeof gc') }));
`;

it('collects the garbage of start-up in one compacting collection, and leaves no gc function behind', () => {
  const trace = traced('--trace-gc', COLLECT_SCRIPT);
  expect(trace).toMatch(/Mark-Compact \(reduce\)/);
  const heap = JSON.parse(trace.trim().split('\n').at(-1) ?? '{}');
  expect(heap.after).toBeLessThan(heap.before / 2);
  expect(heap.gcHere).toBe('undefined');
  expect(heap.gcInNewContexts).toBe('undefined');
});

/**
 * A server's heap as `--trace-gc` shows it: 64 MB that stay, and arrays (each large enough to be allocated on its
 * own) that live a while, as a result batch does across the store's statements, so they reach the old generation.
 */
const HEAP_SCRIPT = `
import { setImmediate } from 'node:timers/promises';
import { growHeapForServing } from '${ROOT}src/cli/start-up-mode.ts';
growHeapForServing();
const kept = Array.from({ length: 200 }, () => new Array(40000).fill(0.5));
const inFlight = [];
for (let i = 0; i < 3000; i++) {
  inFlight.push(new Array(40000).fill(i + 0.5));
  if (inFlight.length > 100) inFlight.shift();
  await setImmediate();
}
console.log('DONE', kept.length, inFlight.length);
`;

/**
 * The heap when each full collection began over the heap it left, but for the collections of the first few MB of
 * the heap (before the arrays that stay are all allocated), by median. It is a little over the growing factor: the
 * script goes on allocating while V8 marks.
 */
function growthBeforeFullCollection(trace: string): number {
  const growths = [...trace.matchAll(/Mark-Compact ([\d.]+) \([\d.]+\) -> ([\d.]+) \(/g)]
    .filter((m) => Number(m[2]) > 60)
    .map((m) => Number(m[1]) / Number(m[2]))
    .sort((a, b) => a - b);
  expect(growths.length).toBeGreaterThan(2);
  return growths[Math.floor(growths.length / 2)] ?? 0;
}

it('lets a serving heap grow to twice what it holds before a full collection, unless the user set how far', () => {
  // Twice, not more: left to itself, V8 lets this heap grow about four times over.
  const serving = growthBeforeFullCollection(traced('--trace-gc', HEAP_SCRIPT));
  expect(serving).toBeGreaterThan(1.9);
  expect(serving).toBeLessThan(2.6);
  const byUser = traced('--trace-gc', HEAP_SCRIPT, ['--heap-growing-percent=10']);
  expect(growthBeforeFullCollection(byUser)).toBeLessThan(1.6);
});

it("keeps the user's --no-maglev --no-turbofan all along, and ends the image launcher's with the start-up mode", () => {
  const compilersOff = ['--no-maglev', '--no-turbofan'];
  const byUser = traced('--trace-opt', SCRIPT, compilersOff);
  expect(byUser).toContain('DONE');
  expect(optimized(byUser, 'hotAfterwards')).toBe(false);
  const byLauncher = traced('--trace-opt', SCRIPT, compilersOff, {
    VANTAGE_LAUNCHER_FLAGS: compilersOff.join(' '),
  });
  expect(optimized(byLauncher, 'hotWhileLoading')).toBe(false);
  expect(optimized(byLauncher, 'hotAfterwards')).toBe(true);
});

it("leaves the user's own V8 settings as given", () => {
  const all = startUpFlagsLeftToUs('').map((flag) => flag.during);
  expect(all).toEqual(['--no-maglev', '--no-turbofan', '--semi-space-growth-factor=1']);
  const left = (userFlags: string) => startUpFlagsLeftToUs(userFlags).map((flag) => flag.during);
  expect(left('--no-opt')).toEqual(['--no-maglev', '--semi-space-growth-factor=1']);
  expect(left('--max-semi-space-size=64 --maglev')).toEqual(['--no-turbofan']);
  expect(left('--max-old-space-size=512 --enable-source-maps')).toEqual(all);
});

it("gives the user's own compiler settings back over the ones main.ts sets first", () => {
  const given = ['--import', 'tsx', '--maglev', '--max-semi-space-size=64', '--no-opt', '--trace-opt'];
  expect(userSettingsOverMain(given)).toEqual(['--maglev', '--no-opt']);
});

/**
 * src/ compiled file by file (as `npm run build` does, but in a second) into a temporary folder beside the project's
 * package.json and node_modules: the command as node runs it, without tsx, whose own loading would be traced too.
 * The folder's name is short on purpose: Node.js's own handling of a main module's path, before the module's first
 * line, makes its path code hot enough for Maglev once the path is longer than about 30 characters.
 */
function builtCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vb-'));
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, 'src', file));
  buildSync({
    entryPoints: sources,
    outdir: join(dir, 's'),
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

it('optimizes nothing while `vantage --version` loads, Node.js’s own start-up code included', () => {
  const dir = builtCopy();
  try {
    const child = spawnSync(process.execPath, ['--trace-opt', join(dir, 's/cli/main.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout).toContain(version);
    expect(child.stdout).not.toMatch(/completed (optimizing|compiling)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What the kernel holds for a running process: the command line and environment it was last exec'd with. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const environment = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

/** A bare `vantage agent` (from source, as tests start it) that waits for a control plane that is not there. */
async function idleAgent(env: Record<string, string> = {}, nodeFlags: string[] = []): Promise<AgentProcess> {
  const settings = {
    API_KEY: FAKE_KEY,
    API_URL: 'http://127.0.0.1:9',
    AGENT_DATA_DIR: mkdtempSync(join(tmpdir(), 'vantage-agent-data-')),
    AGENT_HEALTH_PORT: String(await freePort()),
    ...env,
  };
  // node's own flags go between node and the rest of the command line.
  const agent = new AgentProcess(
    settings,
    nodeFlags.length ? ['sh', '-c', `exec "$0" ${nodeFlags.join(' ')} "$@"`] : [],
  );
  await agent.healthPort();
  return agent;
}

async function stopped(agent: AgentProcess): Promise<void> {
  agent.kill('SIGTERM');
  await agent.exited;
  rmSync(agent.env.AGENT_DATA_DIR ?? '', { recursive: true, force: true });
}

it('starts a bare `vantage agent` again in place, with the compilers off from node’s first line as a launcher does', async () => {
  const agent = await idleAgent();
  try {
    const [node, ...flags] = commandLine(agent.pid);
    expect(node).toBe(process.execPath);
    expect(flags.slice(0, 2)).toEqual(['--no-maglev', '--no-turbofan']);
    expect(flags).toContain(`${ROOT}src/cli/main.ts`);
    expect(environment(agent.pid)).toContain('VANTAGE_LAUNCHER_FLAGS=--no-maglev --no-turbofan');
  } finally {
    await stopped(agent);
  }
}, 90_000);

it('leaves the agent’s node as started where a launcher started it or the user set the compilers', async () => {
  const startedBy: { env: Record<string, string>; nodeFlags: string[] }[] = [
    { env: { VANTAGE_LAUNCHER_FLAGS: '' }, nodeFlags: [] },
    { env: {}, nodeFlags: ['--maglev'] },
  ];
  for (const { env, nodeFlags } of startedBy) {
    const agent = await idleAgent(env, nodeFlags);
    try {
      expect(commandLine(agent.pid)).not.toContain('--no-maglev');
      expect(environment(agent.pid).some((entry) => entry.startsWith('VANTAGE_LAUNCHER_FLAGS=--no'))).toBe(
        false,
      );
    } finally {
      await stopped(agent);
    }
  }
}, 90_000);

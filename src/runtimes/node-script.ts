import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobLogLine } from '../checks/index.js';
import { resolveRuntime } from './catalog.js';
import { HOST_NODE_BIN } from './engines.js';
import { runMarker, type ScriptIdentity, scriptEnvironment } from './sandbox/environment.js';
import { RunLog } from './sandbox/output.js';
import { openRunSpace } from './sandbox/run-space.js';
import { nodeHeapFlag, runSandboxed } from './sandbox/spawn.js';
import type { ScriptSettings } from './settings.js';

/** A Node.js snippet of a check, e.g. an API check's setup script, and the values it may read and change. */
export interface NodeScriptRequest {
  /** The snippet: may use `await` and `require` the runtime's packages. */
  code: string;
  /** Each becomes a global of the snippet (`request`, `response`); JSON values. */
  globals: Record<string, unknown>;
  identity: ScriptIdentity;
  /** The check's variables: the snippet's environment (`process.env`). */
  variables: Record<string, string>;
  runtimeId: string | null | undefined;
  settings: ScriptSettings;
  signal: AbortSignal;
  /** Its own limit, besides `signal`. */
  timeoutMs?: number;
}

export interface NodeScriptResult {
  /** The globals after the snippet ran; null when it failed. */
  globals: Record<string, unknown> | null;
  /** What it printed. */
  logs: JobLogLine[];
  /** Why it failed (its error's first line), or null. */
  error: string | null;
}

/**
 * Runs a snippet in the sandbox every user script runs in (see runSandboxed): its own process group and
 * folder, the check's variables as its environment, the memory cap, the signal and time limit.
 */
export async function runNodeScript(request: NodeScriptRequest): Promise<NodeScriptResult> {
  const runtime = resolveRuntime(request.runtimeId, request.settings.runtimesDir);
  if (runtime instanceof Error) return { globals: null, logs: [], error: runtime.message };
  const { settings } = request;
  const space = await openRunSpace(settings, request.identity.runId, request.signal);
  if (!space) return { globals: null, logs: [], error: 'the script was stopped' };
  const { folder, user } = space;
  try {
    const files = {
      input: join(folder.work, 'input.json'),
      script: join(folder.work, 'script.js'),
      output: join(folder.tmp, 'output.json'),
    };
    await writeFile(files.input, JSON.stringify(request.globals));
    await writeFile(files.script, request.code);
    await symlink(runtime.nodeModules, join(folder.work, 'node_modules'), 'dir');
    await space.handOver();
    const log = new RunLog();
    const runner = join(runtime.nodeModules, '@vantage', 'playwright-helpers', 'internal', 'node-script.js');
    const exit = await runSandboxed({
      file: process.execPath,
      args: [nodeHeapFlag(settings.memoryLimitMb), runner, ...Object.values(files)],
      cwd: folder.work,
      env: scriptEnvironment(request.identity, request.variables, folder, { path: [HOST_NODE_BIN] }),
      marker: runMarker(folder),
      log,
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      memoryLimitMb: settings.memoryLimitMb,
      user,
    });
    const logs = log.lines();
    const output = exit.code === 0 ? await readFile(files.output, 'utf8').catch(() => null) : null;
    if (output !== null) return { globals: JSON.parse(output) as Record<string, unknown>, logs, error: null };
    return { globals: null, logs, error: failureOf(exit, logs) };
  } finally {
    await space.close(false);
  }
}

function failureOf(exit: Awaited<ReturnType<typeof runSandboxed>>, logs: JobLogLine[]): string {
  if (exit.stopped === 'timeout') return 'the script did not finish in time';
  if (exit.stopped === 'aborted') return 'the script was stopped';
  if (exit.startError) return `the script could not start: ${exit.startError}`;
  const thrown = logs.find((line) => line.level === 'WARN' && /^\w*Error\b/.test(line.msg));
  return thrown?.msg ?? `the script ended with ${exit.signal ?? `exit code ${exit.code}`}`;
}

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { RunLog } from './output.js';
import { killRunProcesses, killUserProcesses } from './processes.js';
import { commandAs, type RunUser } from './script-users.js';

/** A command run as a script of a run: in a process group of its own, with a memory cap and a time limit. */
export interface SandboxedCommand {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment (see scriptEnvironment); nothing else is inherited. */
  env: Record<string, string>;
  /** An entry of `env` that no other process has (see runMarker). */
  marker: string;
  /** Where its output goes. */
  log: RunLog;
  /** Stops it (cancel, or the run's execution limit). */
  signal?: AbortSignal;
  /** Stops it after this long. */
  timeoutMs?: number;
  /** Memory cap of each of its processes, in MiB. */
  memoryLimitMb?: number;
  /** The user it runs as (the agent's own when null), see acquireRunUser. */
  user?: RunUser | null;
}

export interface SandboxExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the runner stopped it, or null when it ended on its own. */
  stopped: 'timeout' | 'aborted' | null;
  /** Processes it left behind that were killed after it ended. */
  leftovers: number;
  /** It could not be started. */
  startError: string | null;
}

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path)) ?? null;

/**
 * Address space V8 reserves for compiled code when a Node.js process starts (512 MB on Node.js 24): RLIMIT_DATA
 * counts the reservation though almost none of it is used, so a cap below it would stop every script at start.
 */
const V8_CODE_RANGE_MB = 512;

/**
 * The command line with the memory cap applied: RLIMIT_DATA through prlimit, where the system has it, above V8's
 * code reservation.
 */
function capped(command: SandboxedCommand): string[] {
  const argv = [command.file, ...command.args];
  if (!command.memoryLimitMb || !PRLIMIT) return argv;
  const bytes = (command.memoryLimitMb + V8_CODE_RANGE_MB) * 1024 * 1024;
  return [PRLIMIT, `--data=${bytes}:${bytes}`, '--', ...argv];
}

/** The V8 heap of a Node.js script, below its memory cap so that V8 fails cleanly before the cap kills it. */
export function nodeHeapFlag(memoryLimitMb: number): string {
  return `--max-old-space-size=${Math.max(128, memoryLimitMb - 256)}`;
}

/** Whether the memory cap is enforced on this system. */
export const memoryCapAvailable = PRLIMIT !== null;

/**
 * Runs a command as a script of a run and resolves when it and every process it started are gone: on timeout
 * or abort all are killed; after a normal end, any left behind are killed too.
 */
export async function runSandboxed(command: SandboxedCommand): Promise<SandboxExit> {
  const { file, args, ids } = commandAs(command.user ?? null, capped(command));
  const killAll = (rootPid: number | null) =>
    command.user?.exclusive ? killUserProcesses(command.user) : killRunProcesses(rootPid, command.marker);
  let stopped: SandboxExit['stopped'] = null;
  if (command.signal?.aborted)
    return { code: null, signal: null, stopped: 'aborted', leftovers: 0, startError: null };

  const child = spawn(file, args, {
    cwd: command.cwd,
    env: command.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...ids,
  });
  child.stdout.on('data', (chunk: Buffer) => command.log.write('stdout', chunk));
  child.stderr.on('data', (chunk: Buffer) => command.log.write('stderr', chunk));

  let killing: Promise<number> | undefined;
  const stop = (why: 'timeout' | 'aborted') => {
    if (stopped) return;
    stopped = why;
    killing = killAll(child.pid ?? null);
  };
  const onAbort = () => stop('aborted');
  command.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = command.timeoutMs ? setTimeout(() => stop('timeout'), command.timeoutMs) : undefined;

  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    },
  );
  clearTimeout(timer);
  command.signal?.removeEventListener('abort', onAbort);
  await killing;
  const leftovers = await killAll(null);
  await streamsClosed(child.stdout, child.stderr);
  return {
    code: ended.code,
    signal: ended.signal,
    stopped,
    leftovers,
    startError: ended.error ? ended.error.message : null,
  };
}

/** Waits for the output pipes to drain, at most a moment: every process that held them is gone by now. */
async function streamsClosed(...streams: NodeJS.ReadableStream[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = streams.map(
    (stream) =>
      new Promise<void>((resolve) => {
        if ((stream as { readableEnded?: boolean }).readableEnded) resolve();
        stream.once('end', () => resolve());
        stream.once('close', () => resolve());
      }),
  );
  await Promise.race([Promise.all(closed), new Promise<void>((r) => (timer = setTimeout(r, 1000)))]);
  clearTimeout(timer);
}

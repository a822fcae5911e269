import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `vantage` command (from source, through tsx) and collects its output; `prefix` wraps it (setpriv …);
 * after `timeoutMs` it is killed (SIGKILL).
 */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; prefix?: readonly string[]; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const [file, ...argv] = [
      ...(options.prefix ?? []),
      ...[process.execPath, '--import', 'tsx', `${root}src/cli/main.ts`, ...args],
    ] as [string, ...string[]];
    const child = spawn(file, argv, {
      cwd: options.cwd ?? root,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The check-session records printed by `--reporter json`, by check name. */
export function sessionsByName(stdout: string): Map<string, Record<string, any>> {
  const sessions = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
  return new Map(sessions.map((s) => [s.name as string, s]));
}

import type { RunLog, SandboxedCommand } from '../../runtimes/index.js';
import { runSandboxed } from '../../runtimes/index.js';
import type { DependencyCache } from './dependency-cache.js';

/** How long an install command may take. */
export const INSTALL_LIMIT_MS = 5 * 60_000;

export interface InstallRequest {
  projectDir: string;
  installCommand: string;
  engine: string;
  cache: DependencyCache;
  log: RunLog;
  /** How the install command runs (environment, marker, signal, memory cap). */
  sandbox: Omit<SandboxedCommand, 'file' | 'args' | 'cwd' | 'log' | 'timeoutMs'>;
}

/**
 * Installs the suite's dependencies: from the cache when its lockfile was installed before, else by its
 * install command under the 5-minute limit (and then into the cache). Returns why it failed, or null.
 */
export async function installDependencies(request: InstallRequest): Promise<string | null> {
  const { projectDir, installCommand, engine, cache, log } = request;
  if (installCommand.trim() === '') return null;
  const key = await cache.keyOf(projectDir, installCommand, engine);
  if (key && (await cache.restore(key, projectDir))) {
    log.add('INFO', `dependencies restored from the cache (key ${key.slice(0, 12)})`);
    return null;
  }
  log.add('INFO', `$ ${installCommand}`);
  const started = Date.now();
  const exit = await runSandboxed({
    ...request.sandbox,
    file: '/bin/sh',
    args: ['-c', installCommand],
    cwd: projectDir,
    log,
    timeoutMs: INSTALL_LIMIT_MS,
  });
  if (exit.stopped === 'timeout') {
    return `the install command did not finish within ${INSTALL_LIMIT_MS / 60_000} minutes: ${installCommand}`;
  }
  if (exit.stopped === 'aborted') return 'the run was stopped during the install';
  if (exit.code !== 0) {
    const how =
      exit.startError ?? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`);
    return `the install command ${how}: ${installCommand} (see the log)`;
  }
  log.add('INFO', `installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (key) await cache.save(key, projectDir);
  return null;
}

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type RuntimeManifest, readManifest } from './manifest.js';

/** A runtime this machine has: its folder with its installed packages. */
export interface Runtime {
  id: string;
  dir: string;
  nodeModules: string;
  /** Playwright Test's command-line entry, run with Node.js. */
  playwrightCli: string;
  manifest: RuntimeManifest;
}

/** The runtime a check without a runtimeId runs on (the account default of a new account). */
export const DEFAULT_RUNTIME_ID = '2026.04';

const RUNTIME_FOLDER = /^\d{4}\.\d{2}$/;

/** The runtimes in `runtimesDir` that are installed (manifest and packages present), newest first. */
export function installedRuntimes(runtimesDir: string): Runtime[] {
  let names: string[];
  try {
    names = readdirSync(runtimesDir).filter((name) => RUNTIME_FOLDER.test(name));
  } catch {
    return [];
  }
  const runtimes: Runtime[] = [];
  for (const id of names.sort().reverse()) {
    const dir = join(runtimesDir, id);
    const nodeModules = join(dir, 'node_modules');
    const playwrightCli = join(nodeModules, '@playwright', 'test', 'cli.js');
    const manifest = readManifest(dir);
    if (manifest instanceof Error || !existsSync(playwrightCli)) continue;
    runtimes.push({ id, dir, nodeModules, playwrightCli, manifest });
  }
  return runtimes;
}

/**
 * The runtime a check asks for (the default when it names none), or an error naming the runtimes there are.
 */
export function resolveRuntime(
  requested: string | null | undefined,
  runtimesDir: string,
  defaultId = DEFAULT_RUNTIME_ID,
): Runtime | Error {
  const id = requested || defaultId;
  const installed = installedRuntimes(runtimesDir);
  const runtime = installed.find((r) => r.id === id);
  if (runtime) return runtime;
  const have = installed.length > 0 ? installed.map((r) => r.id).join(', ') : 'none is installed';
  return new Error(`runtime ${id} is not available here (available: ${have})`);
}

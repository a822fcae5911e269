import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Lockfiles of npm, yarn, pnpm and bun: the first one found keys the cache. */
const LOCKFILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
];

/**
 * Installed dependencies of check suites, one `node_modules` per lockfile, install command and engine. A
 * project without a lockfile is never cached: what its install would bring is not fixed.
 */
export class DependencyCache {
  /** `link`: restore as hard links to the cached files (fast, but the project can then change the cache). */
  constructor(
    private readonly dir: string,
    private readonly options: { link: boolean } = { link: true },
  ) {}

  /** The key of the project's dependencies, or null when it has no lockfile. */
  async keyOf(projectDir: string, installCommand: string, engine: string): Promise<string | null> {
    for (const name of LOCKFILES) {
      const content = await readFile(join(projectDir, name)).catch(() => null);
      if (!content) continue;
      const hash = createHash('sha256');
      for (const part of [engine, installCommand, name]) hash.update(part).update('\0');
      return hash.update(content).digest('hex').slice(0, 32);
    }
    return null;
  }

  /** Puts the cached `node_modules` into the project; false when there is none for the key. */
  async restore(key: string, projectDir: string): Promise<boolean> {
    const cached = join(this.dir, key, 'node_modules');
    if (!existsSync(cached)) return false;
    await rm(join(projectDir, 'node_modules'), { recursive: true, force: true });
    await copyTree(cached, join(projectDir, 'node_modules'), this.options.link);
    return true;
  }

  /** Keeps the project's `node_modules` under the key (the first copy wins when two runs race). */
  async save(key: string, projectDir: string): Promise<void> {
    const installed = join(projectDir, 'node_modules');
    if (!existsSync(installed)) return;
    await mkdir(this.dir, { recursive: true });
    const staging = join(this.dir, `.${key}-${randomUUID()}`);
    try {
      await mkdir(staging);
      await copyTree(installed, join(staging, 'node_modules'), true);
      await rename(staging, join(this.dir, key));
    } catch {
      // Another run saved it first, or the disk is full: the next run installs again.
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** Copies a folder, as hard links where asked and it can (same file system, files it may link). */
async function copyTree(from: string, to: string, link: boolean): Promise<void> {
  try {
    if (link) return void (await run('cp', ['-al', from, to]));
  } catch {
    await rm(to, { recursive: true, force: true });
  }
  await run('cp', ['-a', from, to]);
}

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { ScriptUser } from '../settings.js';

/** The folders of one run; nothing in them outlives the run but the artifacts handed to the caller. */
export interface RunFolder {
  root: string;
  /** The script's working folder and HOME. */
  work: string;
  /** The script's TMPDIR (Chromium's profile lands here). */
  tmp: string;
  /** Files the caller uploads or keeps after the run; removed by the caller. */
  artifacts: string;
}

/** Run folders left behind by a process that died are removed once they are this old. */
const STALE_MS = 6 * 60 * 60_000;
const swept = new Set<string>();

/** A new folder for one run under `workDir`; the first call per `workDir` also clears stale ones. */
export async function createRunFolder(workDir: string, runId: string): Promise<RunFolder> {
  await mkdir(workDir, { recursive: true });
  if (!swept.has(workDir)) {
    swept.add(workDir);
    await removeStale(workDir);
  }
  // Short: Chromium's singleton socket lives under the run's TMPDIR, and socket paths hold 107 bytes at most.
  const label = runId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'run';
  const root = await mkdtemp(join(workDir, `${label}-`));
  const folder = {
    root,
    work: join(root, 'work'),
    tmp: join(root, 'tmp'),
    artifacts: join(root, 'artifacts'),
  };
  await Promise.all([folder.work, folder.tmp, folder.artifacts].map((dir) => mkdir(dir)));
  return folder;
}

/** Removes the run's folders; the artifacts folder stays when asked and it holds something. */
export async function removeRunFolder(folder: RunFolder, keepArtifacts: boolean): Promise<void> {
  const kept = keepArtifacts && (await readdir(folder.artifacts).catch(() => [])).length > 0;
  if (!kept) {
    await rm(folder.root, { recursive: true, force: true });
    return;
  }
  const others = (await readdir(folder.root)).filter((name) => name !== basename(folder.artifacts));
  await Promise.all(
    others.map((name) => rm(join(folder.root, name), { recursive: true, force: true, maxRetries: 2 })),
  );
}

async function removeStale(workDir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(workDir).catch(() => [])) {
    const path = join(workDir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}

/**
 * Gives the run's folder, and everything written into it so far, to the user its scripts run as (when that
 * is not the agent's own user), so that they can write there and nowhere else of the agent's.
 */
export async function handOver(folder: RunFolder, user: ScriptUser | null): Promise<void> {
  if (!user) return;
  await promisify(execFile)('chown', ['-R', `${user.uid}:${user.gid}`, folder.root]);
}

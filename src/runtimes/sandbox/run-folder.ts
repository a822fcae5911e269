import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { perRunUser, type RunUser, runAs, type ScriptUsers } from './script-users.js';

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

/**
 * A new folder for one run under `workDir`; the first call per `workDir` also clears stale ones, as their
 * scripts' users where `users` says who those may be.
 */
export async function createRunFolder(
  workDir: string,
  runId: string,
  users?: ScriptUsers,
): Promise<RunFolder> {
  await mkdir(workDir, { recursive: true, mode: 0o711 });
  if (!swept.has(workDir)) {
    swept.add(workDir);
    await removeStale(workDir, users);
  }
  // Short: Chromium's singleton socket lives under the run's TMPDIR, and socket paths hold 107 bytes at most.
  const label = runId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'run';
  const folder = foldersOf(await mkdtemp(join(workDir, `${label}-`)));
  await Promise.all([folder.work, folder.tmp, folder.artifacts].map((dir) => mkdir(dir)));
  return folder;
}

function foldersOf(root: string): RunFolder {
  return { root, work: join(root, 'work'), tmp: join(root, 'tmp'), artifacts: join(root, 'artifacts') };
}

/**
 * Removes the run's folders; the artifacts folder stays when asked and it holds something. What the script's
 * user made, and a non-root agent may not remove, is removed as that user first.
 */
export async function removeRunFolder(
  folder: RunFolder,
  keepArtifacts: boolean,
  user: RunUser | null = null,
): Promise<void> {
  const kept = keepArtifacts && (await readdir(folder.artifacts).catch(() => [])).length > 0;
  const others = (await readdir(folder.root).catch(() => [] as string[]))
    .filter((name) => name !== basename(folder.artifacts))
    .map((name) => join(folder.root, name));
  if (user?.via && others.length > 0) await runAs(user, ['rm', '-rf', '--', ...others]);
  if (!kept) {
    await rm(folder.root, { recursive: true, force: true });
    return;
  }
  await Promise.all(others.map((path) => rm(path, { recursive: true, force: true, maxRetries: 2 })));
}

async function removeStale(workDir: string, users: ScriptUsers | undefined): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(workDir).catch(() => [])) {
    const path = join(workDir, name);
    const info = await stat(path).catch(() => null);
    if (!info || now - info.mtimeMs <= STALE_MS) continue;
    if (
      await rm(path, { recursive: true, force: true }).then(
        () => true,
        () => false,
      )
    )
      continue;
    // What a non-root agent cannot remove was made by its scripts' users: removed as each of them.
    if (users?.mode !== 'per-run' || !users.via) continue;
    for (const uid of await ownersWithin(path, users)) {
      await removeRunFolder(foldersOf(path), false, perRunUser(uid, users.via)).catch(() => {});
    }
  }
}

/** The uids of `range` that own something in the first two levels of `root` (a run folder). */
async function ownersWithin(root: string, range: { first: number; last: number }): Promise<number[]> {
  const owners = new Set<number>();
  const paths = [root];
  for (const name of await readdir(root).catch(() => [])) {
    const child = join(root, name);
    paths.push(child, ...(await readdir(child).catch(() => [])).map((inner) => join(child, inner)));
  }
  for (const path of paths) {
    const uid = (await lstat(path).catch(() => null))?.uid;
    if (uid !== undefined && uid >= range.first && uid <= range.last) owners.add(uid);
  }
  return [...owners];
}

/**
 * Lets the user its scripts run as (when that is not the agent's own user) write in the run's folder and
 * nowhere else of the agent's. An agent running as root gives it everything written there so far; a non-root
 * agent, which cannot, opens what it wrote there to all (the run folders' parent is not listable, so only the
 * run's user finds it), but for the artifacts folder, which only the agent writes.
 */
export async function handOver(folder: RunFolder, user: RunUser | null): Promise<void> {
  if (!user) return;
  const run = promisify(execFile);
  if (!user.via) {
    await run('chown', ['-R', `${user.uid}:${user.gid}`, folder.root]);
    return;
  }
  const me = String(process.getuid?.());
  await run('find', [
    ...[folder.root, '-path', folder.artifacts, '-prune', '-o'],
    ...['-user', me, '!', '-type', 'l', '-exec', 'chmod', 'a+rwX', '{}', '+'],
  ]);
  const workDir = dirname(folder.root);
  if (reachable.has(workDir)) return;
  if (await runAs(user, ['test', '-w', folder.work])) {
    throw new Error(
      `the scripts' user (uid ${user.uid}) cannot reach the run folders in ${workDir} (VANTAGE_WORK_DIR): it ` +
        'and every folder above it must be searchable by others (chmod o+x), as /tmp is',
    );
  }
  reachable.add(workDir);
}

/** Work folders whose run folders a script user was seen to reach. */
const reachable = new Set<string>();

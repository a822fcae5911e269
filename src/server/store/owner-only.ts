import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The folders a sweep listed, by path, with their modification time then. A file is created, removed or renamed
 * only by changing its folder's modification time, so a later sweep with the same map makes only the files of the
 * folders that changed owner-only, instead of looking at every file of the store (about 1,200, 35–58 ms of CPU, in
 * a PGlite store of a million runs).
 */
export type ListedFolders = Map<string, number>;

/** How long ago a folder last changed for its time to be trusted (file systems keep times to a few ms, some to 2 s). */
const SETTLED_MS = 2000;

/**
 * Makes a folder and everything in it readable by its owner only (folders 0700, files 0600). The embedded store
 * holds secret values in its tables and WAL, and PGlite creates its files 0666 whatever the umask; scripts of
 * `vantage dev` run on the same host as other users. Files that vanish meanwhile are skipped. With `listed` (kept
 * from one sweep to the next), the files of a folder unchanged since the last sweep are left as they are.
 */
export async function makeOwnerOnly(dir: string, listed: ListedFolders = new Map()): Promise<void> {
  const pending = [dir];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    // Read before the listing: a file added while it is read changes the time, and the next sweep lists it again.
    const info = await stat(folder).catch(() => null);
    if (!info?.isDirectory()) continue;
    if ((info.mode & 0o077) !== 0) await chmod(folder, 0o700).catch(() => {});
    const unchanged = listed.get(folder) === info.mtimeMs;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && !unchanged) await chmodIfOpen(path, 0o600);
    }
    // A folder changed moments ago may change again within the same tick of the file system's clock, which would
    // leave its time as it is: it is listed again next time.
    if (Date.now() - info.mtimeMs > SETTLED_MS) listed.set(folder, info.mtimeMs);
    else listed.delete(folder);
  }
}

async function chmodIfOpen(path: string, mode: number): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info || (info.mode & 0o077) === 0) return;
  await chmod(path, mode).catch(() => {});
}

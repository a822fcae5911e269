import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes a folder and everything in it readable by its owner only (folders 0700, files 0600). The embedded store
 * holds secret values in its tables and WAL, and PGlite creates its files 0666 whatever the umask; scripts of
 * `vantage dev` run on the same host as other users. Files that vanish meanwhile are skipped.
 */
export async function makeOwnerOnly(dir: string): Promise<void> {
  const pending = [dir];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    await chmodIfOpen(folder, 0o700);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) await chmodIfOpen(path, 0o600);
    }
  }
}

async function chmodIfOpen(path: string, mode: number): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info || (info.mode & 0o077) === 0) return;
  await chmod(path, mode).catch(() => {});
}

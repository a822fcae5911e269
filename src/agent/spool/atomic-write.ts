import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Name prefix of files being written; what is left of them after a crash is garbage. */
export const PARTIAL_PREFIX = '.partial-';

/**
 * Writes a file so that it exists either whole or not at all, even across a power loss: the data goes to a
 * temporary file that is flushed to disk, then renamed over the target, and the directory entry is flushed too.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | readonly string[],
): Promise<void> {
  const partial = join(dirname(path), `${PARTIAL_PREFIX}${process.pid}-${basename(path)}`);
  const file = await open(partial, 'w', 0o600);
  try {
    // Pieces are written one after another, never joined: a large result is not copied once more.
    if (Array.isArray(data)) for (const piece of data) await file.writeFile(piece);
    else await file.writeFile(data as string | Uint8Array);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(partial, { force: true });
    throw error;
  }
  await file.close();
  await rename(partial, path);
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems do not flush directories; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}

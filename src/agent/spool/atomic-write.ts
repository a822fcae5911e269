import { constants, type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Name prefix of files being written; what is left of them after a crash is garbage. */
export const PARTIAL_PREFIX = '.partial-';

/**
 * Writes a file so that it exists either whole or not at all, even across a power loss: the data goes to a
 * temporary file that is flushed to disk, then renamed over the target, and the directory entry is flushed too.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | readonly (string | Buffer)[],
): Promise<void> {
  const partial = join(dirname(path), `${PARTIAL_PREFIX}${process.pid}-${basename(path)}`);
  const file = await open(partial, 'w', 0o600);
  try {
    if (Array.isArray(data)) for (const chunk of chunksOf(data)) await file.writeFile(chunk);
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

/** Pieces joined up to this length are written in one call; a longer piece is written on its own. */
const JOINED_LENGTH = 1024 * 1024;

/**
 * Pieces to write, small ones joined (a group of results is two pieces each: one write for all of them rather
 * than one per piece), a large one on its own: a result's large string is never copied once more.
 */
function* chunksOf(pieces: readonly (string | Buffer)[]): Generator<string | Buffer> {
  let joined: Buffer[] = [];
  let length = 0;
  for (const piece of pieces) {
    if (length + piece.length > JOINED_LENGTH && joined.length > 0) {
      yield joined.length === 1 ? (joined[0] as Buffer) : Buffer.concat(joined);
      joined = [];
      length = 0;
    }
    if (piece.length > JOINED_LENGTH) yield piece;
    else {
      joined.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
      length += piece.length;
    }
  }
  if (joined.length > 0) yield joined.length === 1 ? (joined[0] as Buffer) : Buffer.concat(joined);
}

/**
 * Flags of a file that writes are appended to durably: each write is on disk (data and size, as after an
 * fdatasync) when it returns, so a group of small pieces costs one system call and one trip to the thread pool,
 * not a write and then a flush. Not O_APPEND: Linux would append writes at other offsets too.
 */
export const DURABLE_WRITES = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC;

/** Appends pieces to a file opened with DURABLE_WRITES: on disk when this resolves. */
export async function appendDurably(handle: FileHandle, pieces: readonly (string | Buffer)[]): Promise<void> {
  for (const chunk of chunksOf(pieces)) await handle.writeFile(chunk);
}

/** Flushes a folder's entries: a file created in it survives a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems do not flush directories; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}

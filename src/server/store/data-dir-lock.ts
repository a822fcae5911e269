import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** A problem that stops the control plane from starting, told in one line (no stack). */
export class StartError extends Error {
  override name = 'StartError';
}

const LOCK_FILE = 'server.lock';

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the embedded store's folder for this process: the embedded store serves one process, and a second one on
 * the same folder would silently lose the other's writes. The lock names its process, so one left by a process
 * that died (kill -9, a crash) is taken over.
 */
export async function lockDataDir(dir: string): Promise<{ release(): Promise<void> }> {
  const file = join(dir, LOCK_FILE);
  for (let tries = 0; tries < 3; tries++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => releaseIfOurs(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt((await readFile(file, 'utf8').catch(() => '')).trim(), 10);
    if (alive(holder)) {
      throw new StartError(
        `the embedded store in ${dir} (VANTAGE_DATA_DIR) is in use by process ${holder}: it serves one process; ` +
          'run replicas on PostgreSQL (DATABASE_URL), or give this one another VANTAGE_DATA_DIR',
      );
    }
    await rm(file, { force: true });
  }
  throw new StartError(`could not lock ${file}: other processes keep taking it`);
}

async function releaseIfOurs(file: string): Promise<void> {
  const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (holder === String(process.pid)) await rm(file, { force: true });
}

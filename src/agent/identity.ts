import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from './spool/atomic-write.js';

const ID_FILE = 'agent-id';
const VALID_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * This agent's id, stable across restarts: read from the data directory, or made up once (host name and a
 * random part, so replicas on one host differ) and kept there.
 */
export async function loadAgentId(dataDir: string): Promise<string> {
  const file = join(dataDir, ID_FILE);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (VALID_ID.test(stored)) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const host = hostname()
    .replace(/[^A-Za-z0-9.-]/g, '-')
    .slice(0, 60);
  const id = `${host || 'agent'}-${randomUUID().slice(0, 8)}`;
  await writeFileAtomic(file, `${id}\n`);
  return id;
}

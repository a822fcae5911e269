import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A spool file's text, or '' when the agent removed it since the folder was listed (all its results gone). */
async function readUnlessGone(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * The results written to an agent's spool (not the temporary files of writes under way): a file of its own holds
 * one (a large result), a file results are appended to one per line, less the lines marked acknowledged (`#`).
 */
export async function spooledResults(dataDir: string): Promise<string[]> {
  const dir = join(dataDir, 'spool');
  const results: string[] = [];
  for (const name of await readdir(dir)) {
    if (name.startsWith('.')) continue;
    if (name.endsWith('.result.json')) results.push(name);
    if (!name.endsWith('.results.jsonl')) continue;
    const lines = (await readUnlessGone(join(dir, name)))
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    results.push(...lines.map((_, i) => `${name}:${i}`));
  }
  return results;
}

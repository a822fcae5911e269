import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The results written to an agent's spool (not the temporary files of writes under way): a file of its own holds
 * one (a large result), a file results are appended to one per line.
 */
export async function spooledResults(dataDir: string): Promise<string[]> {
  const dir = join(dataDir, 'spool');
  const results: string[] = [];
  for (const name of await readdir(dir)) {
    if (name.startsWith('.')) continue;
    if (name.endsWith('.result.json')) results.push(name);
    if (!name.endsWith('.results.jsonl')) continue;
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n').filter(Boolean);
    results.push(...lines.map((_, i) => `${name}:${i}`));
  }
  return results;
}

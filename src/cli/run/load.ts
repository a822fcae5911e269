import { readFile } from 'node:fs/promises';
import { type Check, type CheckFileProblem, parseCheckFile } from '../../checks/index.js';

/** Reads and validates every check file; problems of all files are collected, none is run on any problem. */
export async function loadCheckFiles(
  files: readonly string[],
): Promise<{ checks: Check[]; problems: CheckFileProblem[] }> {
  const checks: Check[] = [];
  const problems: CheckFileProblem[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file' : (error as Error).message;
      problems.push({ file, label: '(file)', path: '(file)', message: `cannot be read: ${reason}` });
      continue;
    }
    const parsed = await parseCheckFile(text, file);
    checks.push(...parsed.checks);
    problems.push(...parsed.problems);
  }
  const firstFileOf = new Map<string, string>();
  for (const check of checks) {
    const id = check.id ?? '';
    const earlier = firstFileOf.get(id);
    if (earlier) {
      problems.push({
        file: '(files)',
        label: JSON.stringify(check.name),
        path: 'id',
        message: `is also used by a check in ${earlier}`,
      });
    }
    firstFileOf.set(id, earlier ?? 'another file');
  }
  return { checks, problems };
}

/** Parses `KEY=VALUE`; the value may contain `=`. */
export function parseEnvAssignment(text: string): { key: string; value: string } {
  const at = text.indexOf('=');
  if (at <= 0) throw new Error(`--env ${JSON.stringify(text)}: must be KEY=VALUE`);
  return { key: text.slice(0, at), value: text.slice(at + 1) };
}

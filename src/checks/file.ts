import { hash } from 'node:crypto';
import type { Check } from './check.js';
import { parseCheck, type ValidationProblem } from './validate.js';

/** A problem in a check file, labelled with the check it belongs to: `checks[2] "Homepage"`. */
export interface CheckFileProblem extends ValidationProblem {
  file: string;
  label: string;
}

export function formatFileProblem(p: CheckFileProblem): string {
  if (p.label === '(file)') return `${p.file}: ${p.path === '(file)' ? '' : `${p.path}: `}${p.message}`;
  return `${p.file}: ${p.label}: ${p.path}: ${p.message}`;
}

/** A UUID-shaped id derived from a check's name, so a check keeps its id from run to run. */
export function stableCheckId(name: string): string {
  const hex = hash('sha256', `vantage-check:${name}`, 'hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16] ?? '0', 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function labelOf(raw: unknown, index: number): string {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== ''
    ? `checks[${index}] ${JSON.stringify(name)}`
    : `checks[${index}]`;
}

/**
 * Parses the text of a JSON or YAML check file: a list of checks or `{checks: [...]}`.
 * Every check is validated; all problems are returned together so the author can fix them at once.
 */
export async function parseCheckFile(
  text: string,
  file: string,
): Promise<{ checks: Check[]; problems: CheckFileProblem[] }> {
  let document: unknown;
  try {
    // The YAML parser is imported for YAML files only: it is larger than everything else a URL check loads.
    document = /\.json$/i.test(file) ? JSON.parse(text) : (await import('yaml')).parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      checks: [],
      problems: [{ file, label: '(file)', path: '(file)', message: `cannot be parsed: ${reason}` }],
    };
  }
  const list = Array.isArray(document)
    ? document
    : typeof document === 'object' &&
        document !== null &&
        Array.isArray((document as { checks?: unknown }).checks)
      ? (document as { checks: unknown[] }).checks
      : undefined;
  if (!list) {
    return {
      checks: [],
      problems: [
        { file, label: '(file)', path: 'checks', message: 'must be a list of checks or {checks: [...]}' },
      ],
    };
  }
  const checks: Check[] = [];
  const problems: CheckFileProblem[] = [];
  const seenIds = new Map<string, number>();
  list.forEach((raw, index) => {
    const parsed = parseCheck(raw);
    if (!parsed.ok) {
      const label = labelOf(raw, index);
      for (const p of parsed.problems) problems.push({ file, label, ...p });
      return;
    }
    const check = parsed.value;
    check.id ??= stableCheckId(check.name);
    const earlier = seenIds.get(check.id);
    if (earlier !== undefined) {
      problems.push({
        file,
        label: labelOf(raw, index),
        path: check.id === stableCheckId(check.name) ? 'name' : 'id',
        message: `must be unique in the file (checks[${earlier}] has the same)`,
      });
      return;
    }
    seenIds.set(check.id, index);
    checks.push(check);
  });
  return { checks, problems };
}

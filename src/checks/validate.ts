import type { z } from 'zod';
import { CHECK_SCHEMAS, type Check, isCheckType } from './check.js';
import { CHECK_TYPES } from './enums.js';

/** One broken rule: where it is and what the rule says. */
export interface ValidationProblem {
  path: string;
  message: string;
}

export class CheckValidationError extends Error {
  constructor(
    readonly label: string,
    readonly problems: ValidationProblem[],
  ) {
    super(problems.map((p) => `${label}: ${p.path}: ${p.message}`).join('\n'));
    this.name = 'CheckValidationError';
  }
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: ValidationProblem[] };

/** `request.assertions[0].comparison` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

function describeValues(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** A sentence stating the rule an issue broke, written for the person who wrote the check. */
function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      // Issues carry no input unless asked to: zod's own message says whether anything was given.
      if ('input' in issue ? issue.input === undefined : /received undefined$/.test(issue.message)) {
        return `is required (${TYPE_WORDS[issue.expected] ?? issue.expected})`;
      }
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${describeValues(issue.values)}`
        : `must be one of ${describeValues(issue.values)}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (issue.origin === 'array') return `must have at least ${min} items`;
      return issue.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    case 'invalid_format':
      // A schema's own message says what the pattern means; zod's defaults start with "Invalid".
      if (!issue.message.startsWith('Invalid')) return issue.message;
      if (issue.format === 'regex' && 'pattern' in issue) return `must match ${String(issue.pattern)}`;
      return `must be a valid ${issue.format}`;
    case 'invalid_union':
      if ('options' in issue && Array.isArray(issue.options) && issue.options.length > 0) {
        return `must be one of ${describeValues(issue.options)}`;
      }
      return 'does not match any allowed form';
    default:
      return issue.message;
  }
}

/** Every problem of a zod error, one per issue; unknown keys are reported at the field itself. */
export function problemsOf(error: z.ZodError): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ path: formatPath([...issue.path, key]), message: 'is not a known field' });
      }
      continue;
    }
    problems.push({ path: formatPath(issue.path) || '(check)', message: describeIssue(issue) });
  }
  return problems;
}

/** Validates one check of any kind, picking the schema by its checkType, and applies every default. */
export function parseCheck(input: unknown): ParseResult<Check> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [{ path: '(check)', message: 'must be an object' }] };
  }
  const checkType = (input as { checkType?: unknown }).checkType;
  if (!isCheckType(checkType)) {
    const message =
      checkType === undefined
        ? `is required (one of ${CHECK_TYPES.join(', ')})`
        : `must be one of ${CHECK_TYPES.join(', ')}`;
    return { ok: false, problems: [{ path: 'checkType', message }] };
  }
  const parsed = CHECK_SCHEMAS[checkType].safeParse(input);
  if (!parsed.success) return { ok: false, problems: problemsOf(parsed.error) };
  return { ok: true, value: parsed.data as Check };
}

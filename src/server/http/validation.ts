import type { z } from 'zod';
import { formatPath, problemsOf, type ValidationProblem } from '../../checks/index.js';
import { ApiError } from '../common/errors.js';
import { unstorablePaths } from '../store/unstorable.js';

/** A 400 that lists every invalid field: `attributes.errors = [{field, message}]`. */
export function validationError(where: 'body' | 'query' | 'params', problems: ValidationProblem[]): ApiError {
  const errors = problems.map((p) => ({
    field: where === 'body' ? p.path : `${where}.${p.path}`,
    message: p.message,
  }));
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new ApiError(400, `Invalid ${where === 'body' ? 'request body' : where}: ${summary}`, { errors });
}

/**
 * Parses with a zod schema or throws the 400 that names every problem; text the store cannot keep (U+0000, a lone
 * surrogate) is refused anywhere, in strings and keys.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params',
): z.output<S> {
  const problems: ValidationProblem[] = unstorablePaths(value).map(({ path, reason }) => ({
    path: formatPath(path) || '(value)',
    message: reason,
  }));
  const parsed = schema.safeParse(value);
  if (!parsed.success) problems.push(...problemsOf(parsed.error));
  if (problems.length > 0 || !parsed.success) throw validationError(where, problems);
  return parsed.data;
}

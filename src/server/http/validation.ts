import type { z } from 'zod';
import { formatPath, problemsOf, type ValidationProblem } from '../../checks/index.js';
import { validationError } from '../common/errors.js';
import { unstorablePaths } from '../store/unstorable.js';

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

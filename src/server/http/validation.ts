import type { z } from 'zod';
import { formatPath, problemsOf, type ValidationProblem } from '../../checks/index.js';
import { ApiError } from './errors.js';

/** A 400 that lists every invalid field: `attributes.errors = [{field, message}]`. */
export function validationError(where: 'body' | 'query' | 'params', problems: ValidationProblem[]): ApiError {
  const errors = problems.map((p) => ({
    field: where === 'body' ? p.path : `${where}.${p.path}`,
    message: p.message,
  }));
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new ApiError(400, `Invalid ${where === 'body' ? 'request body' : where}: ${summary}`, { errors });
}

const NUL = '\u0000';

/** Where a JSON-like value holds U+0000, in a string or a key: PostgreSQL text and jsonb cannot store it. */
function nulPaths(value: unknown, path: PropertyKey[] = []): PropertyKey[][] {
  if (typeof value === 'string') return value.includes(NUL) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => nulPaths(item, [...path, i]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      key.includes(NUL) ? [[...path, key]] : nulPaths(item, [...path, key]),
    );
  }
  return [];
}

/** Parses with a zod schema or throws the 400 that names every problem; U+0000 anywhere is refused too. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params',
): z.output<S> {
  const problems: ValidationProblem[] = nulPaths(value).map((path) => ({
    path: formatPath(path) || '(value)',
    message: 'must not contain the NUL character (\\u0000)',
  }));
  const parsed = schema.safeParse(value);
  if (!parsed.success) problems.push(...problemsOf(parsed.error));
  if (problems.length > 0 || !parsed.success) throw validationError(where, problems);
  return parsed.data;
}

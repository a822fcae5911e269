import type { z } from 'zod';
import { problemsOf, type ValidationProblem } from '../../checks/index.js';
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

/** Parses with a zod schema or throws the 400 that names every problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(where, problemsOf(parsed.error));
  return parsed.data;
}

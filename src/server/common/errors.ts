import { STATUS_CODES } from 'node:http';
import type { ValidationProblem } from '../../checks/index.js';

/** An error the API answers with: `{statusCode, error, message, attributes}` (spec, Errors). */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly attributes: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return errorBody(this.statusCode, this.message, this.attributes);
  }
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  attributes: Record<string, unknown>;
}

export function errorBody(
  statusCode: number,
  message: string,
  attributes: Record<string, unknown> = {},
): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, attributes };
}

/** What a domain refusal is about; the HTTP layer answers each kind with its status (http/domain-errors.ts). */
export type DomainErrorKind = 'not-found' | 'conflict' | 'invalid' | 'too-large';

/** A request the domain refuses, in its own terms: services raise these, and know nothing of HTTP. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly attributes: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, id: string | number) =>
  new DomainError('not-found', `${what} ${JSON.stringify(String(id))} was not found`, { id: String(id) });
export const conflict = (message: string, attributes: Record<string, unknown> = {}) =>
  new DomainError('conflict', message, attributes);
export const invalid = (message: string, attributes: Record<string, unknown> = {}) =>
  new DomainError('invalid', message, attributes);

/** Refuses a request for every invalid field it has: `attributes.errors = [{field, message}]`. */
export function validationError(
  where: 'body' | 'query' | 'params',
  problems: ValidationProblem[],
): DomainError {
  const errors = problems.map((p) => ({
    field: where === 'body' ? p.path : `${where}.${p.path}`,
    message: p.message,
  }));
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return invalid(`Invalid ${where === 'body' ? 'request body' : where}: ${summary}`, { errors });
}

import { ApiError, type DomainError, type DomainErrorKind } from '../common/errors.js';

const STATUS_OF: Record<DomainErrorKind, number> = {
  'not-found': 404,
  conflict: 409,
  invalid: 400,
  'too-large': 413,
};

/** The API's answer to a refusal of the domain (spec, Errors). */
export function apiErrorOf(error: DomainError, headers: Record<string, string> = {}): ApiError {
  return new ApiError(STATUS_OF[error.kind], error.message, error.attributes, headers);
}

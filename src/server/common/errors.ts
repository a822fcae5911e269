import { STATUS_CODES } from 'node:http';

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

export const notFound = (what: string, id: string | number) =>
  new ApiError(404, `${what} ${JSON.stringify(String(id))} was not found`, { id: String(id) });
export const conflict = (message: string, attributes: Record<string, unknown> = {}) =>
  new ApiError(409, message, attributes);
export const badRequest = (message: string, attributes: Record<string, unknown> = {}) =>
  new ApiError(400, message, attributes);

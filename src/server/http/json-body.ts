import type { FastifyInstance } from 'fastify';
import { ApiError } from '../common/errors.js';

/** Deepest nesting of objects and arrays a JSON body may have; the API's own bodies stay far below it. */
export const MAX_JSON_DEPTH = 100;

/**
 * How deep a JSON text nests, counted without parsing (brackets inside strings do not count), stopping as soon as
 * it passes `limit`: recursive code further on (validation, the store's JSON) never sees a deeper value.
 */
function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

function bodyError(message: string, rule: string): ApiError {
  return new ApiError(400, `Invalid request body: ${message}`, {
    errors: [{ field: '(body)', message: rule }],
  });
}

/**
 * Why Fastify's parser refused a text: JSON that does not parse, or valid JSON holding a key that could poison
 * prototypes (`__proto__`, or `constructor` with a `prototype`), which the API refuses whatever the route.
 */
function refusal(text: string): ApiError {
  try {
    JSON.parse(text);
  } catch (error) {
    return bodyError(`not valid JSON (${(error as Error).message})`, 'must be valid JSON');
  }
  const key = text.includes('"__proto__"') ? '__proto__' : 'constructor.prototype';
  return bodyError(
    `the key "${key}" is refused (it could change the prototype of objects)`,
    `must not hold the key "${key}"`,
  );
}

/**
 * JSON bodies as Fastify parses them (prototype-poisoning checks included), refused with 400 when nested too deep
 * or poisoned, each with its reason. An empty body is no body: clients send `Content-Type: application/json` on a
 * DELETE without one, and routes that need a body name the fields it lacks.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonDepthOver(text, MAX_JSON_DEPTH)) {
      done(
        bodyError(
          `JSON nests deeper than ${MAX_JSON_DEPTH} levels`,
          `must not nest deeper than ${MAX_JSON_DEPTH} levels`,
        ),
        undefined,
      );
      return;
    }
    parse(request, text, (error, value) => done(error ? refusal(text) : null, value));
  });
}

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../common/errors.js';
import { markStorableTree } from '../store/unstorable.js';

/** Deepest nesting of objects and arrays a JSON body may have; the API's own bodies stay far below it. */
export const MAX_JSON_DEPTH = 100;

/** The escapes of text the store cannot keep: `\u0000`, and `\ud800`–`\udfff` (a surrogate, alone or not). */
function unstorableEscapeAt(text: string, backslash: number): boolean {
  if (text.charCodeAt(backslash + 1) !== 0x75) return false; // not \u
  const hex = text.slice(backslash + 2, backslash + 6).toLowerCase();
  return hex === '0000' || /^d[89a-f]/.test(hex);
}

/**
 * How deep a JSON text nests, counted without parsing (brackets inside strings do not count), stopping as soon as
 * it passes `limit`: recursive code further on (validation, the store's JSON) never sees a deeper value. Also
 * whether an escape in it may be text the store cannot keep: a JSON text can hold U+0000 or a lone surrogate only
 * as an escape (a raw control character is not JSON, and a body decoded from UTF-8 holds no lone surrogate).
 */
function scanJson(text: string, limit: number): { tooDeep: boolean; mayBeUnstorable: boolean } {
  let depth = 0;
  let inString = false;
  let mayBeUnstorable = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) {
        mayBeUnstorable ||= unstorableEscapeAt(text, i);
        i++; // the escaped character
      } else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return { tooDeep: true, mayBeUnstorable };
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return { tooDeep: false, mayBeUnstorable };
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
 * or poisoned, each with its reason. A body with no escape of text the store cannot keep is marked storable, so
 * that nothing walks its strings again to look for such text. An empty body is no body: clients send
 * `Content-Type: application/json` on a DELETE without one, and routes that need a body name the fields it lacks.
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
    const scanned = scanJson(text, MAX_JSON_DEPTH);
    if (scanned.tooDeep) {
      done(
        bodyError(
          `JSON nests deeper than ${MAX_JSON_DEPTH} levels`,
          `must not nest deeper than ${MAX_JSON_DEPTH} levels`,
        ),
        undefined,
      );
      return;
    }
    parse(request, text, (error, value) => {
      if (error) done(refusal(text), undefined);
      else done(null, scanned.mayBeUnstorable ? value : markStorableTree(value));
    });
  });
}

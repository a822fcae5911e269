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

/** JSON bodies as Fastify parses them (prototype-poisoning checks included), refused with 400 when nested too deep. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonDepthOver(body as string, MAX_JSON_DEPTH)) {
      done(
        new ApiError(400, `Invalid request body: JSON nests deeper than ${MAX_JSON_DEPTH} levels`, {
          errors: [{ field: '(body)', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` }],
        }),
        undefined,
      );
      return;
    }
    parse(request, body as string, done);
  });
}

import { someJsonValue } from './json-walk.js';

/** Strings at least this long are written as they are rather than copied into the line. */
const LARGE_STRING = 1024 * 1024;
/** Characters JSON must escape: a string without them is its own JSON text between quotes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A value's JSON text in pieces: a large string that needs no escaping (a base64 body of 33 MB) is its own piece,
 * taken as it is, instead of being copied into one big text first — that text would cost its size once more. The
 * pieces joined are exactly `JSON.stringify(value)`.
 */
export function jsonPieces(value: unknown): string[] {
  // A replacer function costs a call for every value: most results have no large string and need none.
  if (!holdsLargeString(value)) return [JSON.stringify(value)];
  const large: string[] = [];
  const marker = `\u0001large-${Math.random().toString(36).slice(2)}-`;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'string' || item.length < LARGE_STRING || NEEDS_ESCAPE.test(item)) return item;
    large.push(item);
    return `${marker}${large.length - 1}`;
  });
  if (large.length === 0) return [text];
  // The marker holds U+0001, which JSON writes as \u0001: it cannot stand in the output but for our placeholders.
  const escaped = JSON.stringify(marker).slice(1, -1);
  const parts = text.split(new RegExp(`"${escaped.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(\\d+)"`));
  return parts.flatMap((part, i) => (i % 2 === 0 ? [part] : ['"', large[Number(part)] as string, '"']));
}

/** Whether a JSON-like value holds a string of LARGE_STRING or more. */
function holdsLargeString(value: unknown): boolean {
  return someJsonValue(value, (item) => typeof item === 'string' && item.length >= LARGE_STRING);
}

import { createHash } from 'node:crypto';

/** Longest cleaned message kept; longer ones are cut so the hash stays stable over huge dumps. */
const MAX_CLEANED_LENGTH = 1000;

/** What varies between two occurrences of the same error, replaced in this order (each by a placeholder). */
const VARIABLE_PARTS: readonly [RegExp, string | ((match: string) => string)][] = [
  // ISO 8601 dates and times: 2026-04-01T10:00:00.123Z, 2026-04-01 10:00, 2026-04-01
  [/\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<time>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  // IPv6 (optionally bracketed, with a port), before IPv4 so ::ffff:1.2.3.4 goes whole
  [
    /\[?(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])\]?(?::\d{1,5})?/gi,
    (match) => (match.includes('::') || match.split(':').length > 3 ? '<ip>' : match),
  ],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '<ip>'],
  // hex ids: 0x…, or 8+ hex digits with at least one digit (so words like "deadbeef" stay readable)
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b[0-9a-f]{8,}\b/gi, (match) => (/\d/.test(match) ? '<hex>' : match)],
  // ports after a host name: localhost:8080
  [/(?<=[A-Za-z>]):\d{1,5}\b/g, ''],
  // any other number not glued to a word before it (so IPv4, HTTP2, ES2023 stay)
  [/(?<![A-Za-z_<])\d+(?:\.\d+)*/g, '<n>'],
];

/**
 * An error message with what varies between occurrences (numbers, ids, times, addresses) replaced, so the same
 * failure seen twice cleans to the same text.
 */
export function cleanErrorMessage(message: string): string {
  let text = message;
  for (const [pattern, replacement] of VARIABLE_PARTS) {
    text =
      typeof replacement === 'string'
        ? text.replace(pattern, replacement)
        : text.replace(pattern, replacement);
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_CLEANED_LENGTH);
}

/** The errorHash of a cleaned message: the key that groups equal errors. */
export function errorHashOf(cleanedMessage: string): string {
  return createHash('sha256').update(cleanedMessage).digest('hex');
}

import { REDACTED, type SecretValues } from './secret-values.js';

/**
 * Makes text fit to leave the machine in an error report: no keys, secret values, environment values, URLs,
 * addresses, headers, quoted data or JSON/HTML bodies (which is where check configuration and response bodies
 * turn up in error messages).
 */
export function scrubText(text: string, secrets: SecretValues, envValues: readonly string[] = []): string {
  let out = secrets.mask(text);
  for (const value of envValues) out = out.split(value).join(REDACTED);
  out = out
    .split('\n')
    .filter((line) => !HEADER_LINE.test(line))
    .join('\n');
  out = out
    // Stack frames name our own files as file:// URLs; those stay.
    .replace(/\b(?!file:)[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>{}[\]]+/gi, '[url]')
    .replace(/\bwww\.[^\s"'`<>{}[\]]+/gi, '[url]')
    .replace(/\[[0-9a-f:]*:[0-9a-f:]+\](:\d+)?/gi, '[address]')
    .replace(/\b(\d{1,3}\.){3}\d{1,3}(:\d+)?\b/g, '[address]');
  out = replaceBlocks(out, '{', '}', '{…}');
  out = replaceBlocks(out, '[', ']', '[…]', (inner) => !KEPT_BRACKETS.has(inner));
  return out
    .replace(/<(?!anonymous>)[a-zA-Z!/][^>\n]*>[^<\n]*/g, '<…>')
    .replace(/(<…>)+/g, '<…>')
    .replace(/\b([A-Z][A-Z0-9_]{1,})=("[^"]*"|'[^']*'|\S+)/g, `$1=${REDACTED}`)
    .replace(/(^|[\s(=:,])(["'`])[^\n]*?\2(?=$|[\s).,;:\]])/g, '$1$2…$2');
}

/** Placeholders this scrubbing writes itself. */
const KEPT_BRACKETS = new Set(['redacted', 'url', 'address', '…']);

/** `Name: value` lines that look like HTTP headers (a hyphenated name, or a well-known header). */
const HEADER_LINE =
  /^\s*(authorization|proxy-authorization|cookie|set-cookie|host|location|referer|origin|user-agent|accept|x-[\w-]+|[a-z]+-[\w-]+)\s*:/i;

/** Replaces every outermost `open … close` block with `replacement`. */
function replaceBlocks(
  text: string,
  open: string,
  close: string,
  replacement: string,
  shouldReplace: (inner: string) => boolean = () => true,
): string {
  let out = '';
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === open) {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === close && depth > 0) {
      depth--;
      if (depth === 0) {
        const inner = text.slice(start + 1, i);
        out += shouldReplace(inner) ? replacement : text.slice(start, i + 1);
        start = -1;
      }
    } else if (depth === 0) {
      out += ch;
    }
  }
  // An unclosed block runs to the end of the text: drop it too.
  if (depth > 0) out += replacement;
  return out;
}

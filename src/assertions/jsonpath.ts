import { JSONPath } from 'jsonpath-plus';

/** One value a JSONPath selected, with its normalized path such as `$['items'][0]['price']`. */
export interface JsonMatch {
  path: string;
  value: unknown;
}

/**
 * The values `path` selects in `document`. '' and '$' select the whole document. `.length` at the end gives the
 * length of an array or string (jsonpath-plus reads it as the own property it is).
 */
export function queryJson(document: unknown, path: string): { matches: JsonMatch[] } | { error: string } {
  if (path === '' || path === '$') return { matches: [{ path: '$', value: document }] };
  const problem = syntaxProblem(path);
  if (problem) return { error: `JSONPath ${path} is invalid: ${problem}` };
  // jsonpath-plus cannot walk null or undefined; nothing below the root exists then.
  if (document === null || document === undefined) return { matches: [] };
  try {
    const found: unknown = JSONPath({ path, json: document, wrap: true, eval: 'safe', resultType: 'all' });
    if (!Array.isArray(found)) return { matches: [] };
    return {
      matches: found.map((item: { path: string; value: unknown }) => ({
        path: item.path,
        value: item.value,
      })),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: `JSONPath ${path} is invalid: ${message.replace(/^jsonPath: /, '')}` };
  }
}

const CLOSING: Record<string, string> = { '[': ']', '(': ')' };

/** jsonpath-plus silently ignores some malformed paths (`$.items[` reads `$.items`): catch those first. */
function syntaxProblem(path: string): string | null {
  if (!path.startsWith('$')) return 'it must start with $';
  if (path.endsWith('.')) return 'it ends with a dot';
  const open: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < path.length; i++) {
    const char = path[i] as string;
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '[' || char === '(') {
      open.push(CLOSING[char] as string);
    } else if (char === ']' || char === ')') {
      if (open.pop() !== char) return `unexpected ${char} at position ${i + 1}`;
    }
  }
  if (quote) return `unclosed quote ${quote}`;
  if (open.length > 0) return `missing ${open.reverse().join('')}`;
  return null;
}

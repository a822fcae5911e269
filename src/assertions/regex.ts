/** Regexes of assertions: compiled once, and what they pick from a text. */

export type Compiled = { regex: RegExp } | { error: string };

/** Executors evaluate the same assertions again and again (a TCP check on every chunk it reads). The regexes
 * carry no flags, so no state: one compiled instance serves every call. */
const compiled = new Map<string, Compiled>();
const MAX_CACHED = 512;

export function compileRegex(pattern: string): Compiled {
  let entry = compiled.get(pattern);
  if (!entry) {
    if (compiled.size >= MAX_CACHED) compiled.clear();
    entry = compile(pattern);
    compiled.set(pattern, entry);
  }
  return entry;
}

function compile(pattern: string): Compiled {
  try {
    return { regex: new RegExp(pattern) };
  } catch (error) {
    // V8 says "Invalid regular expression: /(/: Unterminated group"; keep the last part.
    const message = error instanceof Error ? error.message : String(error);
    return {
      error: `regex ${showRegex(pattern)} is invalid: ${message.slice(message.lastIndexOf(': ') + 2)}`,
    };
  }
}

/** The first capture group of the first match ('' when that group took no part), the whole match without
 * groups, or undefined when the regex does not match. */
export function firstCapture(regex: RegExp, text: string): string | undefined {
  const match = regex.exec(text);
  if (!match) return undefined;
  return match.length > 1 ? (match[1] ?? '') : match[0];
}

export function showRegex(pattern: string): string {
  return `/${pattern}/`;
}

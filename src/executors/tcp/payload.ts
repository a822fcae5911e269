import type { VariableSet } from '../../checks/index.js';

const ESCAPE = /\\([rnt\\])/g;
const CONTROL: Record<string, string> = { r: '\r', n: '\n', t: '\t', '\\': '\\' };

/**
 * Turns `\r`, `\n`, `\t` (and `\\`) written as two characters into the characters themselves:
 * users write "PING\r\n" in JSON and YAML files where the backslash often stays literal.
 */
export function decodeEscapes(text: string): string {
  return text.replace(ESCAPE, (_whole, letter: string) => CONTROL[letter] ?? letter);
}

/** The bytes to send: escapes decoded in the check's text first, so variable values are sent as they are. */
export function payloadOf(data: string, variables: VariableSet): string {
  return variables.substitute(decodeEscapes(data));
}

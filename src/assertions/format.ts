import type { Comparison, Failure } from './compare.js';
import { isContainer, jsonText, parseTarget } from './values.js';

/** `actual` in a result holds at most this many characters of text (docs/checks.md: 10 KB). */
export const ACTUAL_LIMIT = 10_240;
/** Values quoted in an error message are cut to this many characters. */
const SHOWN_LIMIT = 200;

/** The value as reported in `actual`: text cut to 10 KB; a container whose JSON text is longer becomes that
 * text, cut; one that has no JSON text (nested too deep) null. */
export function limitActual(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value.length > ACTUAL_LIMIT ? value.slice(0, ACTUAL_LIMIT) : value;
  if (!isContainer(value)) return value;
  let text: string;
  try {
    text = jsonText(value);
  } catch {
    return null;
  }
  return text.length > ACTUAL_LIMIT ? text.slice(0, ACTUAL_LIMIT) : value;
}

/** e.g. `expected header content-type "text/html" to contain "json"`. */
export function failureMessage(
  label: string,
  comparison: Comparison,
  target: string,
  failure: Failure,
): string {
  const but = failure.because ? `, but ${failure.because}` : '';
  return `expected ${label}${failure.at} ${show(failure.value)} ${expectation(comparison, target)}${but}`;
}

function expectation(comparison: Comparison, target: string): string {
  const shown = showTarget(target);
  switch (comparison) {
    case 'EQUALS':
      return `to equal ${shown}`;
    case 'NOT_EQUALS':
      return `not to equal ${shown}`;
    case 'HAS_KEY':
      return `to have key ${JSON.stringify(target)}`;
    case 'NOT_HAS_KEY':
      return `not to have key ${JSON.stringify(target)}`;
    case 'HAS_VALUE':
      return `to have value ${shown}`;
    case 'NOT_HAS_VALUE':
      return `not to have value ${shown}`;
    case 'IS_EMPTY':
      return 'to be empty';
    case 'NOT_EMPTY':
      return 'not to be empty';
    case 'LESS_THAN':
      return `to be less than ${shown}`;
    case 'GREATER_THAN':
      return `to be greater than ${shown}`;
    case 'CONTAINS':
      return `to contain ${shown}`;
    case 'NOT_CONTAINS':
      return `not to contain ${shown}`;
    case 'IS_NULL':
      return 'to be null';
    case 'NOT_NULL':
      return 'not to be null';
  }
}

/** Numbers, booleans, null and JSON containers as they are; any other text quoted. */
function showTarget(target: string): string {
  const parsed = parseTarget(target);
  return parsed && typeof parsed.value !== 'string' ? cut(target.trim()) : JSON.stringify(cut(target));
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(cut(value));
  return cut(jsonText(value));
}

function cut(text: string): string {
  return text.length > SHOWN_LIMIT ? `${text.slice(0, SHOWN_LIMIT)}…` : text;
}

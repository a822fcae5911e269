import { asNumber, deepEqual, isContainer, isEmpty, jsonText, parseTarget } from './values.js';

/** The 14 comparisons of docs/checks.md. */
export const COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'LESS_THAN',
  'GREATER_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
] as const;
export type Comparison = (typeof COMPARISONS)[number];

export function isComparison(name: string): name is Comparison {
  return (COMPARISONS as readonly string[]).includes(name);
}

export interface CompareOptions {
  /** Text compares case-insensitively (DNS response codes). */
  ignoreCase?: boolean;
  /** Keys match case-insensitively (header names); the keys of the value are already lower case. */
  keysIgnoreCase?: boolean;
}

/** Why a comparison did not hold. */
export interface Failure {
  /** Where in the value it failed, e.g. `[2]` for an array element; '' for the value itself. */
  at: string;
  /** The value that failed. */
  value: unknown;
  /** Added to the message: `…, but <because>`. */
  because?: string;
  /** The assertion itself is wrong (e.g. a non-numeric target): this replaces the whole message. */
  invalid?: string;
}

/** Comparisons that, on a non-empty array, must hold for every element. */
const PER_ELEMENT: ReadonlySet<Comparison> = new Set(['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN']);

/** Compares a value with the target; null when the comparison holds. Never throws for JSON-like values. */
export function compare(
  value: unknown,
  comparison: Comparison,
  target: string,
  options: CompareOptions = {},
): Failure | null {
  if (appliesPerElement(value, comparison, target)) {
    for (const [index, element] of value.entries()) {
      const failure = compare(element, comparison, target, options);
      if (failure) return { ...failure, at: `[${index}]${failure.at}` };
    }
    return null;
  }
  const held = (holds: boolean): Failure | null => (holds ? null : { at: '', value });
  switch (comparison) {
    case 'EQUALS':
      return held(equalsTarget(value, target, options));
    case 'NOT_EQUALS':
      return held(!equalsTarget(value, target, options));
    case 'HAS_KEY':
      return held(hasKey(value, target, options));
    case 'NOT_HAS_KEY':
      return held(!hasKey(value, target, options));
    case 'HAS_VALUE':
      return held(hasValue(value, target, options));
    case 'NOT_HAS_VALUE':
      return held(!hasValue(value, target, options));
    case 'IS_EMPTY':
      return held(isEmpty(value));
    case 'NOT_EMPTY':
      return held(!isEmpty(value));
    case 'LESS_THAN':
      return order(value, target, (actual, limit) => actual < limit);
    case 'GREATER_THAN':
      return order(value, target, (actual, limit) => actual > limit);
    case 'CONTAINS':
      return held(contains(value, target, options));
    case 'NOT_CONTAINS':
      return held(!contains(value, target, options));
    case 'IS_NULL':
      return held(value === null || value === undefined);
    case 'NOT_NULL':
      return held(value !== null && value !== undefined);
  }
}

function appliesPerElement(value: unknown, comparison: Comparison, target: string): value is unknown[] {
  if (!Array.isArray(value) || value.length === 0 || !PER_ELEMENT.has(comparison)) return false;
  if (comparison === 'EQUALS' || comparison === 'NOT_EQUALS') {
    // A JSON array or object as target compares the whole value.
    return !isContainer(parseTarget(target)?.value);
  }
  return true;
}

function equalsTarget(value: unknown, target: string, options: CompareOptions): boolean {
  if (value === undefined) return false;
  const actualNumber = asNumber(value);
  const targetNumber = asNumber(target);
  if (actualNumber !== undefined && targetNumber !== undefined) return actualNumber === targetNumber;
  if (typeof value === 'string') {
    return options.ignoreCase ? value.toLowerCase() === target.toLowerCase() : value === target;
  }
  if (isContainer(value)) {
    const parsed = parseTarget(target);
    return parsed ? deepEqual(value, parsed.value) : jsonText(value) === target;
  }
  return jsonText(value) === target;
}

function hasKey(value: unknown, target: string, options: CompareOptions): boolean {
  if (!isContainer(value)) return false;
  return Object.hasOwn(value, options.keysIgnoreCase ? target.toLowerCase() : target);
}

function hasValue(value: unknown, target: string, options: CompareOptions): boolean {
  if (value === undefined) return false;
  if (!isContainer(value)) return equalsTarget(value, target, options);
  return Object.values(value).some((item) => equalsTarget(item, target, options));
}

function contains(value: unknown, target: string, options: CompareOptions): boolean {
  if (value === undefined) return false;
  if (Array.isArray(value)) {
    return value.some((item) => equalsTarget(item, target, options) || contains(item, target, options));
  }
  const text = jsonText(value);
  return options.ignoreCase ? text.toLowerCase().includes(target.toLowerCase()) : text.includes(target);
}

function order(
  value: unknown,
  target: string,
  holds: (actual: number, limit: number) => boolean,
): Failure | null {
  const limit = asNumber(target);
  if (limit === undefined)
    return { at: '', value, invalid: `target ${JSON.stringify(target)} is not a number` };
  const actual = asNumber(value);
  if (actual === undefined) return { at: '', value, because: 'it is not a number' };
  return holds(actual, limit) ? null : { at: '', value };
}

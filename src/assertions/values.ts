/** How values read from a response are seen by comparisons: as numbers, as JSON text, as containers. */

const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
/** Longer strings are never treated as numbers, so a huge body is not scanned for one. */
const MAX_NUMBER_TEXT = 64;

/** The number a value stands for: a finite number, or a string holding one (surrounding blanks allowed). */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.length > MAX_NUMBER_TEXT) return undefined;
  const text = value.trim();
  return NUMBER_TEXT.test(text) ? Number(text) : undefined;
}

export function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

// Parsed JSON documents can be large and are compared several times: their text is computed once.
const textCache = new WeakMap<object, string>();

/** The JSON text of a value; strings stay as they are, undefined gives ''. */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (!isContainer(value)) return String(JSON.stringify(value) ?? value);
  let text = textCache.get(value);
  if (text === undefined) {
    text = JSON.stringify(value) ?? '';
    textCache.set(value, text);
  }
  return text;
}

/** The target parsed as JSON, or undefined when it is not JSON. */
export function parseTarget(target: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(target) };
  } catch {
    return undefined;
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]))
  );
}

/** Empty string, empty array, empty object, null, or nothing at all. */
export function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isContainer(value) && Object.keys(value).length === 0;
}

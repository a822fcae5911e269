/**
 * Text the store cannot keep: PostgreSQL text and jsonb refuse U+0000 and UTF-16 surrogates that are not part of a
 * pair ("\ud800" alone), both of which JSON can carry.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters it finds
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

function isUnstorable(text: string): boolean {
  return UNSTORABLE.test(text);
}

/** Why a text cannot be stored, for a validation message. */
function unstorableReason(text: string): string {
  return text.includes('\u0000')
    ? 'must not contain the NUL character (\\u0000)'
    : 'must be well-formed Unicode: a lone surrogate (\\ud800-\\udfff) is not allowed';
}

type Path = (string | number)[];

/**
 * Values known to hold only text the store can keep: JSON bodies whose text held no escape of such text
 * (src/server/http/json-body.ts), and what `storableCopy` returned. Walks that look for such text skip them: a
 * result batch's strings were walked three times (to make it storable, to validate the batch, to validate each
 * result), and every other body's once.
 */
const cleared = new WeakSet<object>();

/**
 * Whether any string of a JSON-like value, or any key, holds text the store cannot keep. The common answer is no,
 * for every body and result: this walk keeps no paths, and only a yes pays for `unstorablePaths` to find where.
 * Without recursion: a value nested thousands of levels deep cannot overflow the stack.
 */
function holdsUnstorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (isUnstorable(item)) return true;
    } else if (typeof item !== 'object' || item === null || cleared.has(item)) {
      // a number, a boolean, null, or a value known to be storable (`cleared`)
    } else if (Array.isArray(item)) {
      for (const child of item) stack.push(child);
    } else {
      for (const key of Object.keys(item)) {
        if (isUnstorable(key)) return true;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * Calls `visit` for every string of a JSON-like value (keys are passed with `key: true`), depth first, without
 * recursion.
 */
function eachString(value: unknown, visit: (text: string, path: Path, key: boolean) => void): void {
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: Path };
    if (typeof item.value === 'string') visit(item.value, item.path, false);
    else if (Array.isArray(item.value)) {
      item.value.forEach((child, i) => {
        stack.push({ value: child, path: [...item.path, i] });
      });
    } else if (typeof item.value === 'object' && item.value !== null) {
      for (const [key, child] of Object.entries(item.value)) {
        visit(key, [...item.path, key], true);
        stack.push({ value: child, path: [...item.path, key] });
      }
    }
  }
}

/** Where a JSON-like value holds text the store cannot keep (at most `max` places), and why. */
export function unstorablePaths(value: unknown, max = 20): { path: Path; reason: string }[] {
  if (!holdsUnstorable(value)) return [];
  const found: { path: Path; reason: string }[] = [];
  eachString(value, (text, path) => {
    if (found.length < max && isUnstorable(text)) found.push({ path, reason: unstorableReason(text) });
  });
  return found;
}

/** The text with each character the store cannot keep replaced by U+FFFD, and how many were replaced. */
function storableText(text: string): { text: string; replaced: number } {
  let replaced = 0;
  const fixed = text.replace(UNSTORABLE_ALL, () => {
    replaced++;
    return '\ufffd';
  });
  return { text: fixed, replaced };
}

/**
 * A copy of a JSON-like value that the store can keep: every NUL and lone surrogate, in values and keys, replaced by
 * U+FFFD. Returns the value itself when nothing needed replacing.
 */
export function storableCopy(value: unknown): { value: unknown; replaced: number } {
  let replaced = 0;
  const fix = (text: string): string => {
    if (!isUnstorable(text)) return text;
    const result = storableText(text);
    replaced += result.replaced;
    return result.text;
  };
  const copy = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return fix(item);
    // Bodies are refused past MAX_JSON_DEPTH before they get here; this bound only keeps recursion safe.
    if (depth > 1000 || typeof item !== 'object' || item === null) return item;
    if (Array.isArray(item)) return item.map((child) => copy(child, depth + 1));
    return Object.fromEntries(Object.entries(item).map(([key, child]) => [fix(key), copy(child, depth + 1)]));
  };
  const storable = holdsUnstorable(value) ? copy(value, 0) : value;
  if (typeof storable === 'object' && storable !== null) cleared.add(storable);
  return { value: storable, replaced };
}

/**
 * Marks a value built of parts that `storableCopy` returned (and of text the store can keep) as storable, so that
 * its validation does not walk those parts again.
 */
export function markStorable<T extends object>(value: T): T {
  cleared.add(value);
  return value;
}

/**
 * Marks a value whose text is known to be storable, and the objects and arrays of its first two levels (a batch's
 * list and its uploads, which are validated one by one): nothing walks their strings to look for text the store
 * cannot keep.
 */
export function markStorableTree(value: unknown): unknown {
  const mark = (item: unknown, levels: number): void => {
    if (typeof item !== 'object' || item === null) return;
    cleared.add(item);
    if (levels === 0) return;
    for (const child of Array.isArray(item) ? item : Object.values(item)) mark(child, levels - 1);
  };
  mark(value, 2);
  return value;
}

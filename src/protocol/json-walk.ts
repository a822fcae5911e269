/**
 * Visits a JSON-like value and every value inside it (an object or array before what it holds), each with its key
 * in its object (undefined for array items and for `value` itself), until a visit returns true; returns whether
 * one did. Objects are walked by `Object.keys` and arrays by index: `for…in` and `Object.entries` made the walks
 * of each result an agent spools (does it fit the upload limit, does it hold a megabyte string) 5–10 % of its CPU.
 */
export function someJsonValue(
  value: unknown,
  visit: (item: unknown, key: string | undefined) => boolean,
): boolean {
  if (visit(value, undefined)) return true;
  const stack: unknown[] = [];
  if (typeof value === 'object' && value !== null) stack.push(value);
  while (stack.length > 0) {
    const item = stack.pop() as object;
    if (Array.isArray(item)) {
      for (const child of item) {
        if (visit(child, undefined)) return true;
        if (typeof child === 'object' && child !== null) stack.push(child);
      }
    } else {
      const record = item as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        if (visit(child, key)) return true;
        if (typeof child === 'object' && child !== null) stack.push(child);
      }
    }
  }
  return false;
}

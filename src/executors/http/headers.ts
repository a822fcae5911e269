import { CREDENTIAL_HEADERS, MASK } from '../../checks/index.js';

/** Request headers in the order they are sent; names as written, duplicates allowed. */
export type HeaderList = [string, string][];

export function hasHeader(headers: HeaderList, name: string): boolean {
  const lower = name.toLowerCase();
  return headers.some(([key]) => key.toLowerCase() === lower);
}

export function withoutHeaders(headers: HeaderList, names: readonly string[]): HeaderList {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return headers.filter(([key]) => !drop.has(key.toLowerCase()));
}

/** Pairs as one record; a repeated key joins its values with ', '. */
export function toRecord(pairs: Iterable<[string, string]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of pairs) record[key] = key in record ? `${record[key]}, ${value}` : value;
  return record;
}

/** Headers as a result shows them: credential values masked. */
export function maskedHeaderRecord(headers: HeaderList): Record<string, string> {
  return toRecord(
    headers.map(([key, value]) => [key, CREDENTIAL_HEADERS.has(key.toLowerCase()) ? MASK : value]),
  );
}

/** Response headers as a result shows them: one string per name. */
export function responseHeaderRecord(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) record[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

/** The flat name/value list undici sends as given. */
export function flatHeaders(headers: HeaderList): string[] {
  return headers.flat();
}

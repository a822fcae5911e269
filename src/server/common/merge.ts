import { MASK } from '../../checks/index.js';

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An update body over a stored document: objects merge field by field, everything else (arrays, scalars, null)
 * replaces what was stored. So `{request: {url}}` changes the URL and keeps the request's other fields.
 */
export function mergeUpdate(stored: Json, patch: Json): Json {
  const out: Json = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeUpdate(current, value) : value;
  }
  return out;
}

interface EnvVariable {
  key?: unknown;
  value?: unknown;
  secret?: unknown;
  locked?: unknown;
}

/**
 * Responses show secret and locked variable values as `*****`; when such a response is sent back, the masked
 * values mean "unchanged" and take the stored value again.
 */
export function restoreMaskedValues(incoming: unknown, stored: unknown): unknown {
  if (!Array.isArray(incoming) || !Array.isArray(stored)) return incoming;
  return incoming.map((item: EnvVariable) => {
    if (!isPlainObject(item) || item.value !== MASK) return item;
    const previous = (stored as EnvVariable[]).find((s) => isPlainObject(s) && s.key === item.key);
    return previous ? { ...item, value: previous.value } : item;
  });
}

/** Environment variables as a response shows them: values of secret and locked ones masked. */
export function maskVariables<T extends { value: string; secret?: boolean; locked?: boolean }>(
  variables: readonly T[] | null | undefined,
): T[] | null | undefined {
  if (!variables) return variables;
  return variables.map((v) => (v.secret || v.locked ? { ...v, value: MASK } : v));
}

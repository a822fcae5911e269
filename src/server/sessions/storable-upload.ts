import { withResultNote } from '../../checks/index.js';
import { markStorable, storableCopy } from '../store/unstorable.js';

/**
 * A result upload the store can keep: a target's NUL characters and lone surrogates (a JSON body with "\ud800"),
 * which PostgreSQL refuses, are replaced by U+FFFD and the result says so in its `notes`. A result is a fact the
 * agent measured: it is kept, never refused for its text.
 */
export function storableUpload(body: unknown): unknown {
  const { value, replaced } = storableCopy(body);
  if (replaced === 0 || typeof value !== 'object' || value === null) return value;
  const upload = value as Record<string, unknown>;
  const result = upload.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return upload;
  const note = `${replaced} character(s) the store cannot keep (U+0000, lone UTF-16 surrogates) were replaced by U+FFFD`;
  return markStorable({ ...upload, result: withResultNote(result as Record<string, unknown>, note) });
}

/** `storableUpload` for each upload of a batch (`{results: [...]}`); anything else is left to validation. */
export function storableBatch(body: unknown): unknown {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return body;
  return markStorable({ ...(body as object), results: results.map(storableUpload) });
}

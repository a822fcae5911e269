import { type CheckResult, failureOf, withResultNote } from '../../checks/results.js';
import { someJsonValue } from '../../protocol/json-walk.js';
import type { ResultUpload } from '../../protocol/messages.js';
import { uploadForVersion } from '../../protocol/uploads.js';

type Path = (string | number)[];
interface Text {
  holder: Record<string | number, unknown>;
  key: string | number;
  path: Path;
  bytes: number;
}

/** Every string value of a JSON-like value with where it sits and its size as JSON text. */
function textsOf(value: unknown): Text[] {
  const texts: Text[] = [];
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: Path };
    if (typeof item.value !== 'object' || item.value === null) continue;
    const holder = item.value as Record<string | number, unknown>;
    for (const [key, child] of Object.entries(holder)) {
      const at = Array.isArray(holder) ? Number(key) : key;
      if (typeof child === 'string') {
        texts.push({
          holder,
          key: at,
          path: [...item.path, at],
          bytes: Buffer.byteLength(JSON.stringify(child)),
        });
      } else stack.push({ value: child, path: [...item.path, at] });
    }
  }
  return texts;
}

/** Characters JSON writes as escapes (`\u0001` is 6 bytes for one). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A bound of a text's size as JSON that copies nothing: exact without escapes, else 6 bytes a UTF-16 unit. */
function jsonBytesAtMost(text: string): number {
  return (ESCAPED.test(text) ? text.length * 6 : Buffer.byteLength(text)) + 2;
}

/**
 * Whether a value's JSON surely fits in `bytes`, found without writing it: each value counts its key (6 bytes a
 * character, as escapes), 4 bytes of punctuation, and its text's bound or 24 bytes (a number, a literal, brackets).
 */
function surelyFits(value: unknown, bytes: number): boolean {
  let bound = 0;
  const tooLarge = someJsonValue(value, (item, key) => {
    bound +=
      (key === undefined ? 0 : key.length * 6) + 4 + (typeof item === 'string' ? jsonBytesAtMost(item) : 24);
    return bound > bytes;
  });
  return !tooLarge;
}

/** The first `length` UTF-16 units of a text, never splitting a surrogate pair. */
function cut(text: string, length: number): string {
  const end = Math.max(0, length);
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/**
 * A result whose JSON fits in `maxBytes`, so the control plane takes it: the longest texts (a 25 MB body of
 * control characters is 150 MB as JSON) are cut, longest first, and the result's `notes` say which and by how much.
 * A result that fits is returned as it is.
 */
export function boundedResult(result: Record<string, unknown>, maxBytes: number): Record<string, unknown> {
  if (surelyFits(result, maxBytes)) return result;
  const copy = structuredClone(result);
  let size = Buffer.byteLength(JSON.stringify(copy));
  const notes: string[] = [];
  const texts = textsOf(copy).sort((a, b) => b.bytes - a.bytes);
  for (const text of texts) {
    // Room for the notes themselves.
    const excess = size - maxBytes + 4096;
    if (excess <= 0) break;
    const value = text.holder[text.key] as string;
    const keepBytes = Math.max(0, text.bytes - excess);
    const kept = cut(value, Math.floor(value.length * (keepBytes / text.bytes)));
    text.holder[text.key] = kept;
    const keptBytes = Buffer.byteLength(JSON.stringify(kept));
    size -= text.bytes - keptBytes;
    notes.push(
      `${text.path.join('.')} was cut from ${value.length} to ${kept.length} characters: the result must fit in ${maxBytes} bytes`,
    );
  }
  return notes.reduce((record, note) => withResultNote(record, note), copy);
}

/** The flags and times of a result, the part the control plane cannot do without. */
const ESSENTIAL = [
  'checkId',
  'checkType',
  'name',
  'hasErrors',
  'hasFailures',
  'isDegraded',
  'overMaxResponseTime',
  'aborted',
  'isCancelled',
  'responseTime',
  'startedAt',
  'stoppedAt',
  'attempts',
  'notes',
] as const;

/**
 * The upload cut down to its status, flags, times and first error, for a result the control plane will not take
 * whole: the run still ends with the status it had, and the note says what was lost and why. It holds only what
 * every protocol version takes (a control plane of version 1 refuses `permanentError`).
 */
export function essentialUpload(upload: ResultUpload, why: string): ResultUpload {
  const full = upload.result;
  const kept: Record<string, unknown> = {};
  for (const field of ESSENTIAL) if (field in full) kept[field] = full[field];
  const failure = failureOf(full as CheckResult);
  if (failure) kept.errorResult = { requestError: failure };
  const note = `the control plane did not take the full result (${why}); only its status, flags, times and first error are kept`;
  return uploadForVersion({ ...upload, result: withResultNote(kept, note) }, 1);
}

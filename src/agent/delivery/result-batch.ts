import { PROTOCOL_LIMITS } from '../../protocol/version.js';
import type { SpoolEntry } from '../spool/spool.js';

const OPEN = Buffer.from('{"results":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** Whether a result fits in a batch at all; a larger one goes on its own. */
export function fitsInBatch(entry: SpoolEntry): boolean {
  return OPEN.length + entry.bytes + CLOSE.length <= PROTOCOL_LIMITS.resultBatchBytes;
}

/**
 * The results that go in the next batch, oldest first: as many as the protocol's limits of count and bytes allow;
 * `full` when no more would fit.
 */
export function pickBatch(ready: readonly SpoolEntry[]): { entries: SpoolEntry[]; full: boolean } {
  const entries: SpoolEntry[] = [];
  let bytes = OPEN.length + CLOSE.length;
  let full = false;
  for (const entry of ready) {
    if (entries.length === PROTOCOL_LIMITS.resultBatchSize) return { entries, full: true };
    const more = entry.bytes + (entries.length > 0 ? COMMA.length : 0);
    if (bytes + more > PROTOCOL_LIMITS.resultBatchBytes) {
      full = true;
      continue;
    }
    entries.push(entry);
    bytes += more;
  }
  return { entries, full: full || entries.length === PROTOCOL_LIMITS.resultBatchSize };
}

/** The body of a batch upload, `{"results":[…]}`, from the uploads' JSON as spooled. */
export function batchBody(uploads: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [OPEN];
  uploads.forEach((upload, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(upload);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

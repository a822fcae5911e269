import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../store/db.js';
import { iso, toNumber } from '../store/rows.js';

/** Largest code bundle accepted (as large as an artifact). */
export const BUNDLE_LIMIT_BYTES = 150 * 1024 * 1024;

/** How a check refers to an uploaded bundle: `codeBundlePath: "bundle:<id>"`. */
export const BUNDLE_REF_PREFIX = 'bundle:';

export class BundleTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`A code bundle is at most ${limitBytes} bytes`);
    this.name = 'BundleTooLargeError';
  }
}

export class NotGzipError extends Error {
  constructor() {
    super('A code bundle must be a .tar.gz: the body is not gzip data');
    this.name = 'NotGzipError';
  }
}

export interface BundleMeta {
  id: string;
  size: number;
  sha256: string;
  created_at: string;
}

/** The bundle id a `codeBundlePath` names, or null when it names a path or URL. */
export function bundleIdOf(codeBundlePath: unknown): string | null {
  if (typeof codeBundlePath !== 'string' || !codeBundlePath.startsWith(BUNDLE_REF_PREFIX)) return null;
  return codeBundlePath.slice(BUNDLE_REF_PREFIX.length);
}

function fileOf(dataDir: string, accountId: string, id: string): string {
  return join(dataDir, 'bundles', accountId, `${id}.tar.gz`);
}

/** Counts, hashes and checks the stream as it passes: gzip magic first, never more than `limitBytes`. */
function inspector(limitBytes: number) {
  const hash = createHash('sha256');
  const state = { size: 0, head: Buffer.alloc(0) };
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      state.size += chunk.length;
      if (state.size > limitBytes) return callback(new BundleTooLargeError(limitBytes));
      if (state.head.length < 2) {
        state.head = Buffer.concat([state.head, chunk.subarray(0, 2 - state.head.length)]);
        if (state.head.length === 2 && (state.head[0] !== 0x1f || state.head[1] !== 0x8b)) {
          return callback(new NotGzipError());
        }
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      callback(state.head.length < 2 ? new NotGzipError() : null);
    },
  });
  return { transform, size: () => state.size, sha256: () => hash.digest('hex') };
}

/**
 * Streams an upload to VANTAGE_DATA_DIR/bundles/<account>/<id>.tar.gz (written beside it, then renamed), stopping
 * as soon as it passes the limit or shows it is not gzip; records it and returns its metadata.
 */
export async function saveBundle(
  db: Db,
  where: { dataDir: string; accountId: string },
  body: Readable,
  now: Date,
  limitBytes = BUNDLE_LIMIT_BYTES,
): Promise<BundleMeta> {
  const id = randomUUID();
  const file = fileOf(where.dataDir, where.accountId, id);
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  const inspect = inspector(limitBytes);
  try {
    await pipeline(body, inspect.transform, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const meta = { id, size: inspect.size(), sha256: inspect.sha256(), created_at: now.toISOString() };
  await db.query(
    'INSERT INTO code_bundles (id, account_id, size, sha256, created_at) VALUES ($1, $2, $3, $4, $5)',
    [id, where.accountId, meta.size, meta.sha256, now],
  );
  return meta;
}

export async function getBundle(db: Db, accountId: string, id: string): Promise<BundleMeta | null> {
  const [row] = await db.query<{ id: string; size: unknown; sha256: string; created_at: Date }>(
    'SELECT id, size, sha256, created_at FROM code_bundles WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return row
    ? { id: row.id, size: toNumber(row.size), sha256: row.sha256, created_at: iso(row.created_at) }
    : null;
}

/** Removes a bundle's record and file; false when the account has no such bundle. */
export async function deleteBundle(db: Db, dataDir: string, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM code_bundles WHERE account_id = $1 AND id = $2 RETURNING id', [
    accountId,
    id,
  ]);
  if (rows.length === 0) return false;
  await rm(fileOf(dataDir, accountId, id), { force: true });
  return true;
}

/** A stored bundle's content to send, or null. */
export async function openBundle(
  db: Db,
  dataDir: string,
  accountId: string,
  id: string,
): Promise<{ stream: Readable; size: number } | null> {
  if (!(await getBundle(db, accountId, id))) return null;
  const file = fileOf(dataDir, accountId, id);
  const info = await stat(file).catch(() => null);
  return info ? { stream: createReadStream(file), size: info.size } : null;
}

import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../store/db.js';

/** Artifact names are file names: no separators, no leading dot. */
export const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export class ArtifactTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The artifact is larger than ${limitBytes} bytes`);
    this.name = 'ArtifactTooLargeError';
  }
}

export interface ArtifactRef {
  dataDir: string;
  accountId: string;
  runId: string;
  name: string;
}

function fileOf(ref: ArtifactRef): string {
  return join(ref.dataDir, 'artifacts', ref.accountId, ref.runId, ref.name);
}

/**
 * Streams an artifact to VANTAGE_DATA_DIR/artifacts/<account>/<run>/<name> (written beside it, then renamed, so a
 * broken upload never leaves half a file), stopping as soon as it passes `limitBytes`.
 */
export async function saveArtifact(
  db: Db,
  ref: ArtifactRef,
  body: Readable,
  contentType: string,
  limitBytes: number,
  now: Date,
): Promise<number> {
  const file = fileOf(ref);
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const partial = `${file}.${randomUUID()}.partial`;
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > limitBytes ? new ArtifactTooLargeError(limitBytes) : null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await db.query(
    `INSERT INTO artifacts (account_id, run_id, name, content_type, size, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (run_id, name) DO UPDATE SET content_type = EXCLUDED.content_type, size = EXCLUDED.size,
                                             created_at = EXCLUDED.created_at`,
    [ref.accountId, ref.runId, ref.name, contentType, size, now],
  );
  return size;
}

/** A stored artifact to send back, or null. */
export async function openArtifact(
  db: Db,
  ref: ArtifactRef,
): Promise<{ stream: Readable; contentType: string; size: number } | null> {
  const [row] = await db.query<{ content_type: string }>(
    'SELECT content_type FROM artifacts WHERE account_id = $1 AND run_id = $2 AND name = $3',
    [ref.accountId, ref.runId, ref.name],
  );
  if (!row) return null;
  const file = fileOf(ref);
  const info = await stat(file).catch(() => null);
  if (!info) return null;
  return { stream: createReadStream(file), contentType: row.content_type, size: info.size };
}

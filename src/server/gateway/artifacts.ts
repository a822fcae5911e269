import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { conflict, DomainError, notFound } from '../common/errors.js';
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

/** The folder of a run's artifacts in a data folder. */
export function runArtifactsDir(dataDir: string, accountId: string, runId: string): string {
  return join(dataDir, 'artifacts', accountId, runId);
}

function fileOf(ref: ArtifactRef): string {
  return join(runArtifactsDir(ref.dataDir, ref.accountId, ref.runId), ref.name);
}

/** What one run may store: a browser run's screenshots, trace, video and report fit many times over. */
export const RUN_ARTIFACT_QUOTA = { count: 64, bytes: 750 * 1024 * 1024 } as const;

/**
 * Claims a name for an upload of a run: only the agent that holds the run's lease may upload, a name is written
 * once (never overwritten), and a run stays within RUN_ARTIFACT_QUOTA. Returns the bytes this upload may have.
 */
export async function claimArtifact(
  db: Db,
  ref: ArtifactRef & { location: string; agentId: string },
  declaredBytes: number,
  contentType: string,
  now: Date,
): Promise<number> {
  const [run] = await db.query<{ status: string; agent_id: string | null }>(
    'SELECT status, agent_id FROM runs WHERE id = $1 AND account_id = $2 AND location = $3',
    [ref.runId, ref.accountId, ref.location],
  );
  if (!run) throw notFound('Run', ref.runId);
  if (run.status !== 'leased' || run.agent_id !== ref.agentId) {
    throw conflict(`Run ${ref.runId} is not leased to this agent: artifacts are uploaded while it runs`);
  }
  const [used] = await db.query<{ count: string | number; bytes: string | number | null }>(
    'SELECT count(*) AS count, sum(size) AS bytes FROM artifacts WHERE run_id = $1',
    [ref.runId],
  );
  const left = RUN_ARTIFACT_QUOTA.bytes - Number(used?.bytes ?? 0);
  if (Number(used?.count ?? 0) >= RUN_ARTIFACT_QUOTA.count || declaredBytes > left) {
    throw new DomainError(
      'too-large',
      `A run keeps at most ${RUN_ARTIFACT_QUOTA.count} artifacts and ${RUN_ARTIFACT_QUOTA.bytes} bytes of them`,
    );
  }
  const claimed = await db.query(
    `INSERT INTO artifacts (account_id, run_id, name, content_type, size, created_at) VALUES ($1, $2, $3, $4, 0, $5)
     ON CONFLICT (run_id, name) DO NOTHING RETURNING name`,
    [ref.accountId, ref.runId, ref.name, contentType, now],
  );
  if (claimed.length === 0) {
    throw conflict(`Run ${ref.runId} has an artifact ${ref.name} already: names are written once`);
  }
  return left;
}

/**
 * Streams a claimed artifact to VANTAGE_DATA_DIR/artifacts/<account>/<run>/<name> (written beside it, then
 * renamed, so a broken upload never leaves half a file), stopping as soon as it passes `limitBytes`; a failed
 * upload gives its claim back.
 */
export async function saveArtifact(
  db: Db,
  ref: ArtifactRef,
  body: Readable,
  limitBytes: number,
): Promise<number> {
  const file = fileOf(ref);
  const partial = `${file}.${randomUUID()}.partial`;
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > limitBytes ? new ArtifactTooLargeError(limitBytes) : null, chunk);
    },
  });
  try {
    await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
    await pipeline(body, counter, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    await db.query('DELETE FROM artifacts WHERE run_id = $1 AND name = $2', [ref.runId, ref.name]);
    throw error;
  }
  await db.query('UPDATE artifacts SET size = $3 WHERE run_id = $1 AND name = $2', [
    ref.runId,
    ref.name,
    size,
  ]);
  return size;
}

/** Types served as they are; anything else (HTML, SVG, scripts) is served as bytes, never rendered. */
const INERT_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'video/webm',
  'video/mp4',
  'application/zip',
  'application/gzip',
  'application/json',
  'text/plain',
  'application/octet-stream',
]);

/** The Content-Type an artifact is served with: its own when inert, else application/octet-stream. */
export function servedType(contentType: string): string {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return INERT_TYPES.has(type) ? type : 'application/octet-stream';
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

import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from '../../observability/logger.js';
import { idempotencyKey, jsonPieces, type ResultUpload, resultUpload } from '../../protocol/index.js';
import { PARTIAL_PREFIX, writeFileAtomic } from './atomic-write.js';

/** One result waiting for the control plane's acknowledgement. */
export interface SpoolEntry {
  /** The Idempotency-Key it is sent with: `<runId>:<attempt>`. */
  key: string;
  runId: string;
  spooledAt: Date;
  bytes: number;
  /** Its file, or null when it could not be written and is kept in memory only. */
  file: string | null;
  /** Only for entries kept in memory. */
  upload?: ResultUpload;
  /** A file of an earlier version: `{key, spooledAt, upload}` rather than the upload itself. */
  wrapped?: boolean;
}

export interface SpoolOptions {
  /** Above this total size the oldest results are dropped (AGENT_SPOOL_MAX_MB). */
  maxBytes: number;
  log: Logger;
  onDropped?: (count: number) => void;
}

const SUFFIX = '.result.json';

/**
 * The results of finished runs, on disk until the control plane acknowledges them. A result is written whole
 * (fsync, atomic rename) before it is sent, so neither a crash nor a control-plane outage loses it.
 */
export class ResultSpool {
  private readonly list: SpoolEntry[] = [];
  private total = 0;
  /** Why the last write failed (the disk is full, read-only, …), or null while results reach the disk. */
  private failure: string | null = null;
  private sequence = 0;

  private constructor(
    readonly dir: string,
    private readonly options: SpoolOptions,
  ) {}

  /** Opens (and creates) the spool, clearing half-written files and reading what an earlier run left. */
  static async open(dir: string, options: SpoolOptions): Promise<ResultSpool> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // A folder that cannot take a result (read-only, full, not ours) must stop the start, not lose results later.
    const probe = join(dir, `.probe-${process.pid}`);
    await writeFileAtomic(probe, 'probe');
    await rm(probe, { force: true });
    const spool = new ResultSpool(dir, options);
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const file = join(dir, name);
      if (name.startsWith(PARTIAL_PREFIX)) {
        await rm(file, { force: true });
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      const entry = await spool.load(file);
      if (entry) spool.push(entry);
    }
    if (spool.list.length > 0) {
      options.log.info({ results: spool.list.length }, 'found results of an earlier run in the spool');
    }
    return spool;
  }

  /**
   * Writes a result; it is on disk when this resolves (or in memory, if the disk failed). The file holds exactly the
   * upload's JSON, which is sent as it is; when it was spooled is in its name.
   */
  async add(upload: ResultUpload): Promise<SpoolEntry> {
    const key = idempotencyKey(upload.runId, upload.attempt);
    const spooledAt = new Date();
    const pieces = jsonPieces(upload);
    const name = `${String(spooledAt.getTime()).padStart(14, '0')}-${String(this.sequence++).padStart(6, '0')}-${randomBytes(3).toString('hex')}${SUFFIX}`;
    const file = join(this.dir, name);
    const bytes = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
    let entry: SpoolEntry;
    try {
      await writeFileAtomic(file, pieces);
      entry = { key, runId: upload.runId, spooledAt, bytes, file };
      if (this.failure) this.options.log.info('the spool takes results on disk again');
      this.failure = null;
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      this.failure = code ?? message;
      this.options.log.error({ err: error }, 'could not write a result to the spool; keeping it in memory');
      entry = { key, runId: upload.runId, spooledAt, bytes, file: null, upload };
    }
    this.push(entry);
    await this.enforceBound();
    return entry;
  }

  /** The upload's JSON to send: the file streamed as it is (a large result is not read into memory), and its size. */
  async openJson(entry: SpoolEntry): Promise<{ body: Buffer | Readable; bytes: number } | null> {
    const text = (upload: ResultUpload) => Buffer.from(JSON.stringify(upload));
    if (entry.upload) return { body: text(entry.upload), bytes: entry.bytes };
    if (!entry.file) return null;
    if (entry.wrapped) {
      const upload = await this.read(entry);
      const body = upload && text(upload);
      return body ? { body, bytes: body.length } : null;
    }
    const info = await stat(entry.file).catch(() => null);
    return info ? { body: createReadStream(entry.file), bytes: info.size } : null;
  }

  async read(entry: SpoolEntry): Promise<ResultUpload | null> {
    if (entry.upload) return entry.upload;
    if (!entry.file) return null;
    try {
      const stored = JSON.parse(await readFile(entry.file, 'utf8')) as
        | ResultUpload
        | { upload: ResultUpload };
      return entry.wrapped ? (stored as { upload: ResultUpload }).upload : (stored as ResultUpload);
    } catch {
      return null;
    }
  }

  async remove(entry: SpoolEntry): Promise<void> {
    const index = this.list.indexOf(entry);
    if (index === -1) return;
    this.list.splice(index, 1);
    this.total -= entry.bytes;
    if (entry.file) await rm(entry.file, { force: true });
  }

  /** Oldest first. */
  entries(): readonly SpoolEntry[] {
    return this.list;
  }

  has(entry: SpoolEntry): boolean {
    return this.list.includes(entry);
  }

  /** Why results cannot be written to disk now (e.g. ENOSPC, EROFS), or null while they can. */
  get writeFailure(): string | null {
    return this.failure;
  }

  get count(): number {
    return this.list.length;
  }

  get bytes(): number {
    return this.total;
  }

  get oldestAt(): Date | null {
    return this.list[0]?.spooledAt ?? null;
  }

  private push(entry: SpoolEntry): void {
    this.list.push(entry);
    this.total += entry.bytes;
  }

  private async load(file: string): Promise<SpoolEntry | null> {
    try {
      const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
      const stored = JSON.parse(text) as { key?: unknown; spooledAt?: unknown; upload?: unknown };
      // Files of earlier versions wrap the upload with its key and time; today's are the upload itself.
      const wrapped = 'upload' in stored && 'key' in stored;
      const upload = resultUpload.parse(wrapped ? stored.upload : stored);
      const spooledAt = new Date(wrapped ? String(stored.spooledAt) : Number(basename(file).split('-')[0]));
      return {
        key: idempotencyKey(upload.runId, upload.attempt),
        runId: upload.runId,
        spooledAt: Number.isNaN(spooledAt.getTime()) ? info.mtime : spooledAt,
        bytes: info.size,
        file,
        ...(wrapped ? { wrapped } : {}),
      };
    } catch {
      this.options.log.warn({ file }, 'removed an unreadable file from the spool');
      await rm(file, { force: true });
      return null;
    }
  }

  /** Drops the oldest results while the spool is over its size (the newest always stays). */
  private async enforceBound(): Promise<void> {
    let dropped = 0;
    while (this.total > this.options.maxBytes && this.list.length > 1) {
      const oldest = this.list[0];
      if (!oldest) break;
      await this.remove(oldest);
      dropped++;
    }
    if (dropped > 0) {
      this.options.log.warn(
        { dropped, maxBytes: this.options.maxBytes },
        `the result spool is over AGENT_SPOOL_MAX_MB: dropped the ${dropped} oldest result${dropped === 1 ? '' : 's'}`,
      );
      this.options.onDropped?.(dropped);
    }
  }
}

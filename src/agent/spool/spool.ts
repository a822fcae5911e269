import { randomBytes } from 'node:crypto';
import { createReadStream, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Logger } from '../../observability/logger.js';
import { jsonPieces } from '../../protocol/json-pieces.js';
import type { ResultUpload } from '../../protocol/messages.js';
import { idempotencyKey } from '../../protocol/uploads.js';
import {
  appendDurably,
  DURABLE_WRITES,
  PARTIAL_PREFIX,
  syncDirectory,
  writeFileAtomic,
} from './atomic-write.js';
import { GroupCommit } from './group-commit.js';

/** The upload schema (zod), loaded when a spooled file is first read back: an empty spool at start needs none. */
const uploadSchema = async () => (await import('../../protocol/messages.js')).resultUpload;

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
  /** Where its JSON starts in a file that holds several results (one per line); absent for a file of its own. */
  offset?: number;
}

export interface SpoolOptions {
  /** Above this total size the oldest results are dropped (AGENT_SPOOL_MAX_MB). */
  maxBytes: number;
  log: Logger;
  onDropped?: (count: number) => void;
  /** Whether other results may come soon (runs in progress): a result then waits for them (GROUP_LINGER_MS). */
  resultsMayFollow?: () => boolean;
}

const SUFFIX = '.result.json';
/** A file results are appended to: one upload's JSON per line. */
const GROUP_SUFFIX = '.results.jsonl';
/** Results larger than this are written to a file of their own, never with others. */
const GROUP_RESULT_BYTES = 1024 * 1024;
const GROUP_RESULTS = 100;
/**
 * How long a result waits for others to share its durable write while runs are in progress; with none left, it is
 * written at once. A durable write is a disk request (on a VM, an exit to the host) of about half a millisecond of
 * the agent's CPU (bench/spool-commit.ts), whatever it holds: at 30 runs/s, with runs a few tens of milliseconds
 * apart, a 20-ms wait still wrote most results alone. Nothing waits on the write: the slot is free already, and
 * delivery waits longer (ResultDelivery's batch linger, counted from the same moment). A result not yet written when
 * the agent is killed is lost with its run's lease, and the run runs again, as one killed mid-run does.
 */
const GROUP_LINGER_MS = 250;
/**
 * Results are appended to one file until it holds this much (or a quarter of AGENT_SPOOL_MAX_MB: results dropped
 * when the spool is full leave the disk with their file) or is this old; then a new file is started.
 */
const SEGMENT_BYTES = 8 * 1024 * 1024;
const SEGMENT_MS = 60_000;
/** Results up to this size are also kept in memory until acknowledged (up to CACHE_BYTES in all): not read back. */
const CACHED_RESULT_BYTES = 64 * 1024;
const CACHE_BYTES = 16 * 1024 * 1024;

/** Replaces the first character of an acknowledged result's line in a file that still holds others. */
const ACKNOWLEDGED_MARK = '#';
const ACKNOWLEDGED = Buffer.from(ACKNOWLEDGED_MARK);

/** Ends each result of a file of several. */
const NEWLINE = Buffer.from('\n');

/** The file results are appended to now. */
interface Segment {
  file: string;
  /** Opened with DURABLE_WRITES: for the appends. */
  handle: FileHandle;
  /** Opened plainly: for the acknowledgement marks, which need no flush. */
  marks: FileHandle;
  bytes: number;
  openedAt: number;
}

/** A result on its way to the disk. */
interface Pending {
  upload: ResultUpload;
  /** Its JSON: one Buffer, also sent from memory; or text in pieces when it holds a large string. */
  pieces: (string | Buffer)[];
  bytes: number;
  spooledAt: Date;
}

/**
 * The results of finished runs, on disk until the control plane acknowledges them. A result is on disk (a write to a
 * file opened with O_DSYNC, as durable as a write and an fdatasync) before it is sent, so neither a crash nor a
 * control-plane outage loses it. Results are appended to one file, one line each; those that finish together
 * (within GROUP_LINGER_MS, or while another write is under way) are written together, one durable write for all of
 * them (group commit): each is on disk before its `add` resolves.
 * A file goes once all its results are acknowledged and it takes no more (it is full or old); a large result is
 * written to a file of its own (fsync, atomic rename).
 */
export class ResultSpool {
  private readonly list: SpoolEntry[] = [];
  /** How many entries of each Idempotency-Key are spooled. */
  private readonly keys = new Map<string, number>();
  private total = 0;
  /** Why the last write failed (the disk is full, read-only, …), or null while results reach the disk. */
  private failure: string | null = null;
  private sequence = 0;
  /** The JSON of small results spooled by this process, so that sending them does not read them back. */
  private readonly cache = new Map<SpoolEntry, Buffer>();
  private cachedBytes = 0;
  /** Files of several results, by how many of their results are still spooled. */
  private readonly groups = new Map<string, number>();
  private readonly commits = new GroupCommit<Pending, SpoolEntry>(
    (group) => this.append(group),
    GROUP_RESULTS,
    GROUP_LINGER_MS,
    () => this.options.resultsMayFollow?.() ?? false,
  );
  private segment: Segment | null = null;
  /** Writes flushed to disk so far (each an fsync or fdatasync): how well results share them. */
  private flushes = 0;

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
      if (name.endsWith(GROUP_SUFFIX)) for (const entry of await spool.loadGroup(file)) spool.push(entry);
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
   * Writes a result; it is on disk when this resolves (or in memory, if the disk failed). Its line of the file
   * results are appended to (or a large result's file of its own) holds exactly the upload's JSON, which is sent as
   * it is; when it was spooled is in the file's name.
   */
  async add(upload: ResultUpload): Promise<SpoolEntry> {
    // Serialised once: these bytes are written, and sent from memory while the result is small.
    const text = jsonPieces(upload);
    const pieces = text.length === 1 ? [Buffer.from(text[0] as string)] : text;
    const bytes = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
    const pending = { upload, pieces, bytes, spooledAt: new Date() };
    const entry =
      bytes > GROUP_RESULT_BYTES ? await this.writeAlone(pending) : await this.commits.add(pending);
    this.push(entry);
    // A result in pieces holds a string of a megabyte or more: never small enough to be kept.
    const [json] = pieces;
    if (
      entry.file &&
      Buffer.isBuffer(json) &&
      bytes <= CACHED_RESULT_BYTES &&
      this.cachedBytes + bytes <= CACHE_BYTES
    ) {
      this.cache.set(entry, json);
      this.cachedBytes += bytes;
    }
    await this.enforceBound();
    return entry;
  }

  /** Writes a large result to a file of its own, whole or not at all. */
  private async writeAlone(pending: Pending): Promise<SpoolEntry> {
    const file = join(this.dir, this.fileName(pending.spooledAt, SUFFIX));
    try {
      await writeFileAtomic(file, pending.pieces);
    } catch (error) {
      return this.keptInMemory([pending], error)[0] as SpoolEntry;
    }
    this.written();
    return { ...entryOf(pending), file };
  }

  /**
   * Appends results that finished together to the spool's current file, one upload per line, with one durable write
   * for all of them (a new file costs a flush of the folder too, once). When the disk fails they are
   * kept in memory, and the file takes no more: what a failed write left at its end is skipped when it is read.
   */
  private async append(group: readonly Pending[]): Promise<SpoolEntry[]> {
    let segment: Segment;
    try {
      segment = (await this.usableSegment()) ?? (await this.newSegment(group[0]?.spooledAt ?? new Date()));
    } catch (error) {
      return this.keptInMemory(group, error);
    }
    // Counted before the write: the file is not removed under it when its earlier results are acknowledged.
    this.groups.set(segment.file, (this.groups.get(segment.file) ?? 0) + group.length);
    try {
      await appendDurably(
        segment.handle,
        group.flatMap((p) => [...p.pieces, NEWLINE]),
      );
    } catch (error) {
      this.retire(segment);
      const left = (this.groups.get(segment.file) ?? 0) - group.length;
      if (left > 0) this.groups.set(segment.file, left);
      else await this.removeGroupFile(segment.file);
      return this.keptInMemory(group, error);
    }
    this.written();
    return group.map((p) => {
      const entry = { ...entryOf(p), file: segment.file, offset: segment.bytes };
      segment.bytes += p.bytes + 1;
      return entry;
    });
  }

  /** The file being appended to, or null when there is none or it is full or old (then retired). */
  private async usableSegment(): Promise<Segment | null> {
    const segment = this.segment;
    if (!segment) return null;
    const full = segment.bytes >= Math.min(SEGMENT_BYTES, this.options.maxBytes / 4);
    if (!full && Date.now() - segment.openedAt < SEGMENT_MS) return segment;
    this.retire(segment);
    // Every result in it was acknowledged while it took more: nothing waits for it to go.
    if (!this.groups.get(segment.file)) await this.removeGroupFile(segment.file);
    return null;
  }

  /** A file of several results none of which is spooled any more, and that takes no more. */
  private async removeGroupFile(file: string): Promise<void> {
    this.groups.delete(file);
    await rm(file, { force: true });
  }

  private async newSegment(at: Date): Promise<Segment> {
    const file = join(this.dir, this.fileName(at, GROUP_SUFFIX));
    const handle = await open(file, DURABLE_WRITES, 0o600);
    let marks: FileHandle | null = null;
    try {
      marks = await open(file, 'r+');
      await syncDirectory(this.dir);
    } catch (error) {
      await Promise.all([handle.close(), marks?.close()]);
      await rm(file, { force: true });
      throw error;
    }
    this.segment = { file, handle, marks, bytes: 0, openedAt: Date.now() };
    return this.segment;
  }

  /** No more results go to this file; it is removed with the last of its results. */
  private retire(segment: Segment): void {
    if (this.segment === segment) this.segment = null;
    segment.handle.close().catch(() => {});
    segment.marks.close().catch(() => {});
  }

  /**
   * Marks a result's line so that a restart does not send it again (no fsync: a mark lost in a crash only sends an
   * acknowledged result once more, which the control plane acknowledges as a copy).
   */
  private async markAcknowledged(file: string, offset: number): Promise<void> {
    try {
      const active = this.segment?.file === file ? this.segment.marks : null;
      if (active) {
        // One byte into a page the append wrote, with no flush: it lands in the page cache and does not wait on the
        // disk. Written at once rather than through the thread pool, which cost a hand-over to a pool thread and a
        // wake-up of the event loop per acknowledged result.
        writeSync(active.fd, ACKNOWLEDGED, 0, 1, offset);
        return;
      }
      const handle = await open(file, 'r+');
      try {
        await handle.write(ACKNOWLEDGED, 0, 1, offset);
      } finally {
        await handle.close();
      }
    } catch {
      // The file is gone or closed under us: nothing of it is sent again, or it is sent once more.
    }
  }

  private fileName(at: Date, suffix: string): string {
    const stamp = String(at.getTime()).padStart(14, '0');
    return `${stamp}-${String(this.sequence++).padStart(6, '0')}-${randomBytes(3).toString('hex')}${suffix}`;
  }

  private written(): void {
    this.flushes++;
    if (this.failure) this.options.log.info('the spool takes results on disk again');
    this.failure = null;
  }

  private keptInMemory(group: readonly Pending[], error: unknown): SpoolEntry[] {
    const { code, message } = error as NodeJS.ErrnoException;
    this.failure = code ?? message;
    this.options.log.error({ err: error }, 'could not write a result to the spool; keeping it in memory');
    return group.map((p) => ({ ...entryOf(p), file: null, upload: p.upload }));
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
    if (!info) return null;
    if (entry.offset === undefined) return { body: createReadStream(entry.file), bytes: info.size };
    const end = entry.offset + entry.bytes - 1;
    return { body: createReadStream(entry.file, { start: entry.offset, end }), bytes: entry.bytes };
  }

  /** The upload's JSON read whole, for a batch that sends several; null when it cannot be read. */
  async jsonBytes(entry: SpoolEntry): Promise<Buffer | null> {
    const cached = this.cache.get(entry);
    if (cached) return cached;
    if (entry.file && entry.offset !== undefined) return readSlice(entry.file, entry.offset, entry.bytes);
    const json = await this.openJson(entry);
    if (!json) return null;
    return Buffer.isBuffer(json.body) ? json.body : buffer(json.body).catch(() => null);
  }

  async read(entry: SpoolEntry): Promise<ResultUpload | null> {
    if (entry.upload) return entry.upload;
    if (!entry.file) return null;
    if (entry.offset !== undefined) {
      const json = await readSlice(entry.file, entry.offset, entry.bytes);
      return json && (JSON.parse(json.toString('utf8')) as ResultUpload);
    }
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
    const copies = (this.keys.get(entry.key) ?? 1) - 1;
    if (copies > 0) this.keys.set(entry.key, copies);
    else this.keys.delete(entry.key);
    if (this.cache.delete(entry)) this.cachedBytes -= entry.bytes;
    if (!entry.file) return;
    if (entry.offset !== undefined) {
      // A file of several results goes once none of them is spooled any more, and it takes no more. The file being
      // appended to stays (its results marked) until it is full or old: at a low load every result is often
      // acknowledged before the next arrives, and a new file each time cost a file created, the folder flushed and
      // the file removed, a few times a second.
      const left = (this.groups.get(entry.file) ?? 1) - 1;
      if (left > 0 || this.segment?.file === entry.file) {
        this.groups.set(entry.file, left);
        await this.markAcknowledged(entry.file, entry.offset);
        return;
      }
      await this.removeGroupFile(entry.file);
      return;
    }
    await rm(entry.file, { force: true });
  }

  /** Oldest first. */
  entries(): readonly SpoolEntry[] {
    return this.list;
  }

  has(entry: SpoolEntry): boolean {
    return this.list.includes(entry);
  }

  /** Whether a result of this Idempotency-Key is spooled (a run sent again is not run twice). */
  holds(key: string): boolean {
    return this.keys.has(key);
  }

  /** Why results cannot be written to disk now (e.g. ENOSPC, EROFS), or null while they can. */
  get writeFailure(): string | null {
    return this.failure;
  }

  get diskFlushes(): number {
    return this.flushes;
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
    this.keys.set(entry.key, (this.keys.get(entry.key) ?? 0) + 1);
  }

  private async load(file: string): Promise<SpoolEntry | null> {
    const resultUpload = await uploadSchema();
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

  /** The results of a file written by a group commit; its unreadable lines are skipped (and logged). */
  private async loadGroup(file: string): Promise<SpoolEntry[]> {
    const resultUpload = await uploadSchema();
    const text = await readFile(file).catch(() => null);
    const entries: SpoolEntry[] = [];
    const spooledAt = new Date(Number(basename(file).split('-')[0]));
    let offset = 0;
    let unreadable = 0;
    for (const line of (text ?? Buffer.alloc(0)).toString('utf8').split('\n')) {
      const bytes = Buffer.byteLength(line);
      try {
        if (bytes > 0 && !line.startsWith(ACKNOWLEDGED_MARK)) {
          const upload = resultUpload.parse(JSON.parse(line));
          const key = idempotencyKey(upload.runId, upload.attempt);
          entries.push({ key, runId: upload.runId, spooledAt, bytes, file, offset });
        }
      } catch {
        unreadable++;
      }
      offset += bytes + 1;
    }
    if (unreadable > 0 || !text)
      this.options.log.warn({ file, unreadable }, 'skipped unreadable results in the spool');
    if (entries.length === 0) await rm(file, { force: true });
    else this.groups.set(file, entries.length);
    return entries;
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

function entryOf(p: Pending): Omit<SpoolEntry, 'file'> {
  return {
    key: idempotencyKey(p.upload.runId, p.upload.attempt),
    runId: p.upload.runId,
    spooledAt: p.spooledAt,
    bytes: p.bytes,
  };
}

/** `bytes` bytes of a file from `offset`; null when the file is gone. */
async function readSlice(file: string, offset: number, bytes: number): Promise<Buffer | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const data = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(data, 0, bytes, offset);
    return bytesRead === bytes ? data : null;
  } finally {
    await handle.close();
  }
}

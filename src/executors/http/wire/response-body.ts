import { Readable } from 'node:stream';

/** The side of a connection a body reads from: it stops and restarts the socket while the reader is behind. */
interface BodySource {
  pause(): void;
  resume(): void;
  destroy(): void;
}

/** Bytes held for a reader not yet there, before the socket is paused. */
const HELD_BYTES = 64 * 1024;

/**
 * A response's body as it arrives. Bytes that come with the headers are held until the run decides what to do with
 * the body: read it as a stream (`stream()`, API checks), drop it and close the connection (`discard()`, URL
 * monitors), or drop it while reading to the end so the connection can carry the next request (`dump()`, redirects).
 */
export class ResponseBody {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private done = false;
  private error: unknown = null;
  private reader: Readable | null = null;
  private dumping: { left: number; settle: () => void } | null = null;

  constructor(private readonly source: BodySource) {}

  /** The body as a stream; read it to its end, or destroy it (which closes the connection). */
  stream(): Readable {
    const reader = new Readable({
      read: () => this.source.resume(),
      destroy: (error, callback) => {
        if (!this.done) this.source.destroy();
        callback(error);
      },
    });
    this.reader = reader;
    for (const chunk of this.held) reader.push(chunk);
    this.held = [];
    if (this.error !== null) reader.destroy(this.error as Error);
    else if (this.done) reader.push(null);
    return reader;
  }

  /** Not read: the connection closes, whatever is still coming. */
  discard(): void {
    this.held = [];
    if (!this.done) this.source.destroy();
  }

  /**
   * Reads the rest without keeping it, so the connection can be used again; past `limit` more bytes it is closed
   * instead. Resolves when the body ended, failed or was given up.
   */
  dump(limit: number): Promise<void> {
    this.held = [];
    if (this.done || this.error !== null) return Promise.resolve();
    return new Promise((settle) => {
      this.dumping = { left: limit - this.heldBytes, settle };
      this.source.resume();
      if (this.dumping.left < 0) this.giveUpDump();
    });
  }

  /** @internal the connection's parser hands over a chunk of the body. */
  received(chunk: Buffer): void {
    if (this.reader) {
      if (!this.reader.push(chunk)) this.source.pause();
    } else if (this.dumping) {
      this.dumping.left -= chunk.length;
      if (this.dumping.left < 0) this.giveUpDump();
    } else {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes > HELD_BYTES) this.source.pause();
    }
  }

  /** @internal the body's last byte was parsed. */
  ended(): void {
    this.done = true;
    this.reader?.push(null);
    this.dumping?.settle();
  }

  /** @internal the connection failed before the body's end. */
  failed(error: unknown): void {
    this.error = error;
    this.reader?.destroy(error as Error);
    this.dumping?.settle();
  }

  private giveUpDump(): void {
    this.source.destroy();
    this.dumping?.settle();
    this.dumping = null;
  }
}

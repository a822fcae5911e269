import { pipeline, type Readable } from 'node:stream';
import { decodersFor } from './decompress.js';

export interface BodyRead {
  /** At most `limit` bytes of the decoded body. */
  data: Buffer;
  /** More followed the kept bytes; they were not read. */
  truncated: boolean;
  /** The Content-Encoding was not one we decode, so the body is as sent. */
  undecoded: boolean;
}

/**
 * Reads a response body, decoded, keeping at most `limit` bytes. Reading stops at the limit and the
 * stream is destroyed, which closes the connection: memory stays bounded whatever the server sends.
 */
export async function readBody(
  source: Readable,
  contentEncoding: string | undefined,
  limit: number,
): Promise<BodyRead> {
  const decoders = decodersFor(contentEncoding);
  const stream: Readable =
    decoders && decoders.length > 0
      ? (pipeline([source, ...decoders], () => {}) as unknown as Readable)
      : source;
  const kept = new KeptBytes(limit);
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!kept.add(chunk)) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated) discard(source);
  }
  return { data: kept.bytes(), truncated, undecoded: decoders === null };
}

/** Bodies up to this size are gathered chunk by chunk; a larger one is copied once into a buffer of the limit. */
const SMALL_BODY_BYTES = 1024 * 1024;

/**
 * The first `limit` bytes of a stream, each byte held once: a large body goes straight into one buffer of the
 * limit (its untouched pages cost no memory) instead of a list of chunks concatenated at the end, a second copy.
 */
class KeptBytes {
  private chunks: Buffer[] = [];
  private large: Buffer | null = null;
  private length = 0;

  constructor(private readonly limit: number) {}

  /** Keeps what fits of `chunk`; false when the limit was reached (what is past it is dropped). */
  add(chunk: Buffer): boolean {
    const room = this.limit - this.length;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (!this.large && this.length + part.length > SMALL_BODY_BYTES) {
      this.large = Buffer.allocUnsafeSlow(this.limit);
      Buffer.concat(this.chunks, this.length).copy(this.large);
      this.chunks = [];
    }
    if (this.large) part.copy(this.large, this.length);
    else this.chunks.push(part);
    this.length += part.length;
    return chunk.length <= room;
  }

  bytes(): Buffer {
    return this.large ? this.large.subarray(0, this.length) : Buffer.concat(this.chunks, this.length);
  }
}

/** Stops a body unread: destroying it closes the connection, and its abort error is expected. */
export function discard(stream: Readable): void {
  stream.on('error', () => {});
  stream.destroy();
}

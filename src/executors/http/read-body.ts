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
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = limit - kept;
      if (chunk.length > room) {
        truncated = true;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept = limit;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
  } finally {
    if (truncated) discard(source);
  }
  return { data: Buffer.concat(chunks, kept), truncated, undecoded: decoders === null };
}

/** Stops a body unread: destroying it closes the connection, and its abort error is expected. */
export function discard(stream: Readable): void {
  stream.on('error', () => {});
  stream.destroy();
}

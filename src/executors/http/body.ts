import { isUtf8 } from 'node:buffer';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

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

/** Why a body the run is done with is destroyed. Made once, not an error (and its stack) per run. */
export const DONE_WITH = new Error('the run is done with this response');

/** Stops a body unread: destroying it closes the connection, and its abort error is expected. */
export function discard(stream: Readable): void {
  stream.on('error', () => {});
  stream.destroy(DONE_WITH);
}

/** Lenient like browsers: a body cut short still yields what was decoded. */
const ZLIB_OPTIONS = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_OPTIONS = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/**
 * `deflate` is zlib-wrapped by the standard, but some servers send raw deflate: the first byte tells
 * which. Output is paused while the reader is behind, so a small input cannot inflate into a big buffer.
 */
class InflateEither extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;

  private innerFor(chunk: Buffer): zlib.Inflate | zlib.InflateRaw {
    // biome-ignore lint/style/noNonNullAssertion: chunk is non-empty
    const zlibWrapped = (chunk[0]! & 0x0f) === 0x08;
    const inner = zlibWrapped ? zlib.createInflate(ZLIB_OPTIONS) : zlib.createInflateRaw(ZLIB_OPTIONS);
    inner.on('data', (data: Buffer) => {
      if (!this.push(data)) inner.pause();
    });
    inner.on('error', (error) => this.destroy(error));
    return inner;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (chunk.length === 0) {
      callback();
      return;
    }
    this.inner ??= this.innerFor(chunk);
    this.inner.write(chunk, (error) => callback(error ?? undefined));
  }

  override _read(size: number): void {
    this.inner?.resume();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) {
      callback();
      return;
    }
    this.inner.once('end', () => callback());
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

function decoderFor(coding: string): Transform | null {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(ZLIB_OPTIONS);
    case 'deflate':
      return new InflateEither();
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_OPTIONS);
    default:
      return null;
  }
}

/**
 * The decoders for a Content-Encoding, in the order to apply them (the reverse of the header's), or
 * null when one of its codings is unknown and the body is kept as sent.
 */
function decodersFor(contentEncoding: string | undefined): Transform[] | null {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const decoders = codings.reverse().map(decoderFor);
  return decoders.every((d) => d !== null) ? (decoders as Transform[]) : null;
}

const TEXT_TYPES =
  /^(text\/.+|[\w-]+\/([\w.-]+\+)?(json|xml)|application\/(javascript|ecmascript|x-javascript|x-www-form-urlencoded|graphql|yaml|x-yaml|x-ndjson))$/;

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function charsetOf(contentType: string | undefined): string {
  return /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
}

/** Text as its charset says (UTF-8 when it says none or one we do not know). */
export function decodeText(data: Buffer, contentType: string | undefined): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(data);
  } catch {
    return data.toString('utf8');
  }
}

/** Whether bytes hold a C0 control character other than whitespace and ESC: "text" that is binary in all but name. */
function hasBinaryControls(data: Buffer): boolean {
  for (let i = 0; i < data.length; i++) {
    const byte = data[i] as number;
    if (byte < 0x20 && (byte < 0x09 || (byte > 0x0d && byte !== 0x1b))) return true;
  }
  return false;
}

/**
 * How a result carries a body: text for text-like content types whose bytes are text, base64 for anything else —
 * also for a "text" body of invalid UTF-8 or control characters, which as JSON text would grow up to six-fold
 * (`\u0000` for each NUL byte) where base64 grows by a third.
 */
export function bodyEncodingOf(data: Buffer, contentType: string | undefined): 'utf8' | 'base64' {
  const type = mediaType(contentType);
  const textual = type === '' || TEXT_TYPES.test(type);
  const utf8 = /^utf-?8$/i.test(charsetOf(contentType));
  if (!textual || (utf8 && !isUtf8(data))) return 'base64';
  return hasBinaryControls(data) ? 'base64' : 'utf8';
}

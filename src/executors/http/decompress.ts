import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

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
export function decodersFor(contentEncoding: string | undefined): Transform[] | null {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const decoders = codings.reverse().map(decoderFor);
  return decoders.every((d) => d !== null) ? (decoders as Transform[]) : null;
}

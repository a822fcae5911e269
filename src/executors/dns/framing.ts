/** DNS over TCP: every message is preceded by its length as two bytes (RFC 1035 §4.2.2). */
export function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(message.length);
  return Buffer.concat([prefix, message]);
}

/** Gathers the chunks of a TCP stream until the first length-prefixed message is complete. */
export class FrameReader {
  private buffered = Buffer.alloc(0);

  /** Adds a chunk; returns the first whole message once all its bytes are in, else null. */
  push(chunk: Buffer): Buffer | null {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    if (this.buffered.length < 2) return null;
    const length = this.buffered.readUInt16BE(0);
    if (this.buffered.length < 2 + length) return null;
    return this.buffered.subarray(2, 2 + length);
  }

  /** What has arrived so far, for an error message when the stream ends early. */
  progress(): string {
    if (this.buffered.length < 2) return `got ${this.buffered.length} of 2 length bytes`;
    return `got ${this.buffered.length - 2} of ${this.buffered.readUInt16BE(0)} bytes`;
  }
}

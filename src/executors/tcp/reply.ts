import { StringDecoder } from 'node:string_decoder';
import { MAX_REPLY_BYTES } from './limits.js';

/** The reply as it arrives, decoded as UTF-8 and bounded in size. */
export class Reply {
  private readonly decoder = new StringDecoder('utf8');
  private bytes = 0;
  /** Everything decoded so far (a character split across chunks waits for its last byte). */
  text = '';
  /** performance.now() of the last byte kept, null before the first. */
  lastByteAt: number | null = null;

  constructor(private readonly limit = MAX_REPLY_BYTES) {}

  get size(): number {
    return this.bytes;
  }

  /** Keeps what fits under the bound; returns true once the bound is reached. */
  add(chunk: Buffer, at: number): boolean {
    const room = this.limit - this.bytes;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length > 0) {
      this.bytes += kept.length;
      this.text += this.decoder.write(kept);
      this.lastByteAt = at;
    }
    return this.bytes >= this.limit;
  }

  /** The whole reply; a character cut at the end shows as U+FFFD. */
  finish(): string {
    this.text += this.decoder.end();
    return this.text;
  }
}

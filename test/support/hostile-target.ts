/**
 * A hostile HTTP target on 127.0.0.1: an endless body, and gzip, brotli and deflate bombs that decompress to
 * `bombBytes` of zeros from a few megabytes on the wire (compressed once at start, streamed on every request).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

export const BOMB_PATHS = ['/gzip', '/br', '/deflate'] as const;
export const HOSTILE_PATHS = ['/endless', ...BOMB_PATHS] as const;

const CHUNK = Buffer.alloc(1024 * 1024);

/** `bytes` of zeros, a megabyte a chunk. */
function zeros(bytes: number): Readable {
  let left = bytes;
  return new Readable({
    read() {
      const n = Math.min(left, CHUNK.length);
      left -= n;
      this.push(n > 0 ? CHUNK.subarray(0, n) : null);
    },
  });
}

async function compress(
  encoder: zlib.Gzip | zlib.BrotliCompress | zlib.Deflate,
  bytes: number,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  await pipeline(zeros(bytes), encoder);
  return Buffer.concat(parts);
}

export interface HostileTarget {
  url(path: string): string;
  close(): Promise<void>;
}

export async function startHostileTarget(bombBytes = 1024 * 1024 * 1024): Promise<HostileTarget> {
  const bombs: Record<string, { encoding: string; body: Buffer }> = {
    '/gzip': { encoding: 'gzip', body: await compress(zlib.createGzip({ level: 1 }), bombBytes) },
    '/br': {
      encoding: 'br',
      body: await compress(
        zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
        bombBytes,
      ),
    },
    '/deflate': { encoding: 'deflate', body: await compress(zlib.createDeflate({ level: 1 }), bombBytes) },
  };
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const bomb = bombs[path];
    if (bomb) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': bomb.encoding });
      response.end(bomb.body);
      return;
    }
    if (path === '/endless') {
      response.writeHead(200, { 'content-type': 'application/json' });
      const body = zeros(Number.MAX_SAFE_INTEGER);
      body.pipe(response);
      response.on('close', () => body.destroy());
      return;
    }
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

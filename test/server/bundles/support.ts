import { gzipSync } from 'node:zlib';
import type { TestServer } from '../../support/server.js';

/** A small gzip body (the server checks only that it is gzip; it never unpacks bundles). */
export const GZIP = gzipSync(Buffer.from('a tarball would be here'));

/** Uploads a bundle as the bootstrap admin (or with other headers); answers status and parsed body. */
export async function uploadBundle(
  server: TestServer,
  body: Uint8Array | ReadableStream<Uint8Array>,
  options: { contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/v1/code-bundles`, {
    method: 'POST',
    headers: {
      ...(options.headers ?? server.headers),
      'content-type': options.contentType ?? 'application/gzip',
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A PLAYWRIGHT check body running the bundle `path` refers to. */
export function playwrightCheck(codeBundlePath: string, fields: Record<string, unknown> = {}) {
  return {
    name: 'Shop suite',
    activated: false,
    codeBundlePath,
    playwrightConfigPath: 'playwright.config.js',
    ...fields,
  };
}

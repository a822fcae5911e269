import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretMasker } from '../../../src/checks/index.js';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

const MAX_BODY = 26_214_400;
const TEXT = JSON.stringify({ message: 'compressed hello', items: Array.from({ length: 50 }, (_, i) => i) });
const ENCODED: Record<string, Buffer> = {
  gzip: gzipSync(TEXT),
  deflate: deflateSync(TEXT),
  'raw-deflate': deflateRawSync(TEXT),
  br: brotliCompressSync(TEXT),
};
/** 30 MB of zeros, compressed to a few kB. */
const ZEROS = Buffer.alloc(30 * 1024 * 1024);
const BOMBS: Record<string, Buffer> = {
  gzip: gzipSync(ZEROS),
  deflate: deflateSync(ZEROS),
  'raw-deflate': deflateRawSync(ZEROS),
  br: brotliCompressSync(ZEROS),
};

/** What the server saw of the last huge body it streamed. */
const huge = { sent: 0, closedEarly: false, done: Promise.resolve() };

function streamHuge(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  let closed: () => void = () => {};
  huge.done = new Promise((resolve) => {
    closed = resolve;
  });
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
  res.on('close', () => {
    Object.assign(huge, { sent, closedEarly: sent < total });
    closed();
  });
  const pump = () => {
    while (sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

let server: TestServer;

beforeAll(async () => {
  server = await startHttpServer((req, res) => {
    const path = req.url ?? '/';
    const [, kind, coding = ''] = /^\/(encoded|bomb)\/(.+)$/.exec(path) ?? [];
    if (kind) {
      const wire = coding === 'raw-deflate' ? 'deflate' : coding;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': wire });
      return res.end(kind === 'bomb' ? BOMBS[coding] : ENCODED[coding]);
    }
    if (path === '/binary') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.from([0, 1, 2, 255]));
    }
    if (path === '/nul-text') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"a":"\u0000"}\u0000');
    }
    if (path === '/invalid-utf8') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    }
    if (path === '/tabs') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('a\tb\r\nc\u001b[0m');
    }
    if (path === '/binary-echo') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.from('\u0000token=s3cr3t-value\u0000', 'latin1'));
    }
    if (path === '/latin1') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      return res.end(Buffer.from('café', 'latin1'));
    }
    if (path === '/huge') return streamHuge(res, 2 * 1024 ** 3);
    res.end('ok');
  });
});
afterAll(() => server.close());

/** The peak of heap and buffer memory above what it was at the start, while `work` runs. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, used());
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, used());
    return { result, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('compressed bodies', () => {
  it.each(Object.keys(ENCODED))('decodes %s', async (coding) => {
    const attempt = await executeApi(
      apiCheck({
        url: server.url(`/encoded/${coding}`),
        assertions: [
          { source: 'JSON_BODY', property: '$.message', comparison: 'EQUALS', target: 'compressed hello' },
        ],
      }),
      runContext(),
    );
    expect(attempt.error).toBeNull();
    expect(apiResult(attempt).response).toMatchObject({ body: TEXT, bodyEncoding: 'utf8' });
  });

  it.each(Object.keys(BOMBS))('keeps 25 MB of a %s body that inflates beyond it', async (coding) => {
    const attempt = await executeApi(apiCheck({ url: server.url(`/bomb/${coding}`) }), runContext());
    const result = apiResult(attempt);
    expect(attempt.error).toBeNull();
    // Zeros are "text" in name only: carried as base64 (a third larger), not as JSON escapes (six times larger).
    expect(result.response?.bodyEncoding).toBe('base64');
    expect(Buffer.from(result.response?.body ?? '', 'base64').length).toBe(MAX_BODY);
    expect(result.jobLog.some((l) => l.level === 'WARN' && /truncated/.test(l.msg))).toBe(true);
  });
});

describe('body encodings', () => {
  it('carries a binary body as base64', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/binary') }), runContext());
    expect(apiResult(attempt).response).toMatchObject({ body: 'AAEC/w==', bodyEncoding: 'base64' });
  });

  it('carries a "text" body of control characters or invalid UTF-8 as base64', async () => {
    for (const path of ['/nul-text', '/invalid-utf8']) {
      const attempt = await executeApi(apiCheck({ url: server.url(path) }), runContext());
      expect(apiResult(attempt).response?.bodyEncoding, path).toBe('base64');
    }
    const tabs = await executeApi(apiCheck({ url: server.url('/tabs') }), runContext());
    expect(apiResult(tabs).response).toMatchObject({ body: 'a\tb\r\nc\u001b[0m', bodyEncoding: 'utf8' });
  });

  it('masks a secret inside a base64 body', async () => {
    const context = { ...runContext(), mask: secretMasker(['s3cr3t-value']) };
    const attempt = await executeApi(apiCheck({ url: server.url('/binary-echo') }), context);
    const body = Buffer.from(apiResult(attempt).response?.body ?? '', 'base64').toString('latin1');
    expect(body).toBe('\u0000token=*****\u0000');
  });

  it('decodes text in the charset it declares', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/latin1') }), runContext());
    expect(apiResult(attempt).response).toMatchObject({ body: 'café', bodyEncoding: 'utf8' });
  });
});

describe('a huge body (2 GB streamed)', () => {
  it('is cut at 25 MB for an API check, quickly and in bounded memory', async () => {
    const started = Date.now();
    const { result: attempt, growth } = await peakGrowth(() =>
      executeApi(apiCheck({ url: server.url('/huge') }), runContext()),
    );
    await huge.done;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(attempt.error).toBeNull();
    const response = apiResult(attempt).response;
    expect(response?.body.length).toBe(MAX_BODY);
    expect(response?.timingPhases.download).toBeGreaterThan(0);
    expect(
      apiResult(attempt)
        .jobLog.map((l) => l.msg)
        .join('\n'),
    ).toMatch(/truncated/);
    expect(huge.closedEarly).toBe(true);
    expect(huge.sent).toBeLessThan(200 * 1024 * 1024);
    expect(growth).toBeLessThan(300 * 1024 * 1024);
  });

  it('is not read at all by a URL monitor', async () => {
    const { result: attempt, growth } = await peakGrowth(() =>
      executeUrl(urlCheck({ url: server.url('/huge') }), runContext()),
    );
    await huge.done;
    expect(attempt.error).toBeNull();
    const response = apiResult(attempt).response;
    expect(response).toMatchObject({ status: 200, body: '', bodyEncoding: null });
    expect(response?.timingPhases.download).toBe(0);
    expect(huge.closedEarly).toBe(true);
    expect(huge.sent).toBeLessThan(64 * 1024 * 1024);
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  });
});

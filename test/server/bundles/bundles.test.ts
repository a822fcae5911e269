import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { createAccount } from '../api/support.js';
import { GZIP, playwrightCheck, uploadBundle } from './support.js';

describe.each(STORES)('code bundles (%s)', (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(store);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('uploads a .tar.gz, reads its metadata back, and deletes it', async () => {
    const created = await uploadBundle(server, GZIP);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      size: GZIP.length,
      sha256: createHash('sha256').update(GZIP).digest('hex'),
      created_at: expect.any(String),
    });
    const read = await server.api('GET', `/v1/code-bundles/${created.body.id}`);
    expect(read).toEqual({ status: 200, body: created.body });

    expect((await server.api('DELETE', `/v1/code-bundles/${created.body.id}`)).status).toBe(204);
    expect((await server.api('GET', `/v1/code-bundles/${created.body.id}`)).status).toBe(404);
    expect((await server.api('DELETE', `/v1/code-bundles/${created.body.id}`)).status).toBe(404);
  });

  it('takes application/octet-stream too, and refuses other content types', async () => {
    expect((await uploadBundle(server, GZIP, { contentType: 'application/octet-stream' })).status).toBe(201);
    expect((await uploadBundle(server, GZIP, { contentType: 'text/plain' })).status).toBe(415);
  });

  it('refuses a body that is not gzip with 400, and stores nothing', async () => {
    const stored = async () =>
      (await server.server.context.db.query<{ n: number }>('SELECT count(*)::int AS n FROM code_bundles'))[0]
        ?.n;
    const before = await stored();
    const answer = await uploadBundle(server, Buffer.from('PK\u0003\u0004 a zip file'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ statusCode: 400, message: expect.stringContaining('gzip') });
    expect((await uploadBundle(server, new Uint8Array())).status).toBe(400);
    expect(await stored()).toBe(before);
  });

  it('answers 413 for a bundle over 150 MB, whether it declares its length or streams it', async () => {
    const chunk = new Uint8Array(8 * 1024 * 1024);
    chunk.set([0x1f, 0x8b]);
    const declared = await fetch(`${server.url}/v1/code-bundles`, {
      method: 'POST',
      headers: {
        ...server.headers,
        'content-type': 'application/gzip',
        'content-length': String(151 * 1024 * 1024),
      },
      body: chunk,
    }).catch(() => null);
    // The server may close before the client finishes sending; when the answer arrives, it is 413.
    if (declared) expect(declared.status).toBe(413);

    let sent = 0;
    const streamed = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 160 * 1024 * 1024) return controller.close();
        controller.enqueue(sent === 0 ? chunk : new Uint8Array(chunk.length));
        sent += chunk.length;
      },
    });
    const answer = await uploadBundle(server, streamed).catch((error: Error) => ({ status: 0, body: error }));
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ statusCode: 413, attributes: { limitBytes: 150 * 1024 * 1024 } });
  });

  it('keeps bundles to their account, and needs a user key', async () => {
    const created = await uploadBundle(server, GZIP);
    const otherHeaders = (await createAccount(server)).headers;
    const seen = await fetch(`${server.url}/v1/code-bundles/${created.body.id}`, { headers: otherHeaders });
    expect(seen.status).toBe(404);
    const removed = await fetch(`${server.url}/v1/code-bundles/${created.body.id}`, {
      method: 'DELETE',
      headers: otherHeaders,
    });
    expect(removed.status).toBe(404);
    const check = await fetch(`${server.url}/v1/checks/playwright`, {
      method: 'POST',
      headers: { ...otherHeaders, 'content-type': 'application/json' },
      body: JSON.stringify(playwrightCheck(`bundle:${created.body.id}`)),
    });
    expect(check.status).toBe(400);
    expect((await uploadBundle(server, GZIP, { headers: {} })).status).toBe(401);
  });

  it('lets a PLAYWRIGHT check refer to an uploaded bundle, and refuses one that does not exist', async () => {
    const bundle = await uploadBundle(server, GZIP);
    const created = await server.api(
      'POST',
      '/v1/checks/playwright',
      playwrightCheck(`bundle:${bundle.body.id}`),
    );
    expect(created.status).toBe(201);
    expect(created.body.codeBundlePath).toBe(`bundle:${bundle.body.id}`);

    const missing = await server.api(
      'POST',
      '/v1/checks/playwright',
      playwrightCheck('bundle:6f0c3a52-8d2e-4a8e-9b1a-6a1f9a3c2d10'),
    );
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.attributes)).toContain('codeBundlePath');

    const update = await server.api('PUT', `/v1/checks/playwright/${created.body.id}`, {
      ...playwrightCheck('bundle:not-a-bundle'),
    });
    expect(update.status).toBe(400);
    expect(JSON.stringify(update.body.attributes)).toContain('codeBundlePath');
  });
});

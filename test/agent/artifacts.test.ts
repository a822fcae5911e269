import { createReadStream } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/agent/config.js';
import { type Artifact, ArtifactUploader } from '../../src/agent/delivery/artifacts.js';
import { ControlPlaneHttp } from '../../src/agent/delivery/http-client.js';
import { createLogger } from '../../src/observability/logger.js';
import { SecretValues } from '../../src/observability/secret-values.js';
import { LogCapture, startTestAgent, waitFor } from '../support/agent.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import { apiCheckAt, completed, FAST_RUNS, runIdsOf, trigger } from '../support/runs.js';
import {
  type CreatedLocation,
  createApiCheck,
  createLocation,
  startTestServer,
  TEST_PUBLIC_URL,
  type TestServer,
} from '../support/server.js';

let server: TestServer;
let target: CountingTarget;
let location: CreatedLocation;
beforeAll(async () => {
  target = await startCountingTarget();
  // Leases long enough that the runs these tests lease by hand stay leased while they upload.
  server = await startTestServer('pglite', { runs: { ...FAST_RUNS, leaseTtlMs: 120_000 } });
  location = await createLocation(server, 'artifacts');
});
afterAll(async () => {
  await server?.close();
  await target?.close();
});

let http: ControlPlaneHttp | null = null;
afterEach(async () => {
  await server.start();
  await http?.close();
  http = null;
});

function uploader(retry = { attempts: 4, baseMs: 20, maxMs: 100 }): {
  uploader: ArtifactUploader;
  logs: LogCapture;
} {
  const loaded = loadConfig({ API_KEY: location.key, API_URL: server.url });
  if (!loaded.ok) throw new Error(loaded.problems.join());
  http = new ControlPlaneHttp(loaded.config, UPLOADER);
  const logs = new LogCapture();
  const log = createLogger({ level: 'DEBUG', destination: logs, secrets: new SecretValues() });
  return { uploader: new ArtifactUploader({ http, log, retry }), logs };
}

/** The agent id the uploader of these tests sends. */
const UPLOADER = 'uploader';

/** A run of the location leased to `agentId` (no agent runs it): artifacts are uploaded by a run's holder. */
async function leasedRun(agentId = UPLOADER): Promise<string> {
  const check = await createApiCheck(
    server,
    apiCheckAt(target.url('/never-run'), { privateLocations: ['artifacts'] }),
  );
  const [runId] = await runIdsOf(server, await trigger(server, [check]));
  const leased = await server.server.runs.db.query(
    `UPDATE runs SET status = 'leased', agent_id = $2, lease_expires_at = now() + interval '1 hour',
            leases = leases + 1 WHERE id = $1 RETURNING id`,
    [runId, agentId],
  );
  if (leased.length !== 1) throw new Error('the run was not leased');
  return runId as string;
}

/** Downloads an artifact as a user would. */
async function download(
  runId: string,
  name: string,
): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(`${server.url}/v1/runs/${runId}/artifacts/${name}`, {
    headers: server.headers,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** An artifact whose content is generated as it is read, `chunkDelayMs` apart; counts how often it was opened. */
function generated(name: string, size: number, chunkDelayMs = 0): Artifact & { opens: number } {
  const artifact = {
    name,
    contentType: 'application/octet-stream',
    size,
    opens: 0,
    open() {
      artifact.opens++;
      let left = size;
      return new Readable({
        read() {
          const n = Math.min(left, chunkDelayMs > 0 ? 1024 : 64 * 1024);
          left -= n;
          setTimeout(() => this.push(n > 0 ? Buffer.alloc(n, 7) : null), chunkDelayMs);
        },
      });
    },
  };
  return artifact;
}

describe('agent: artifacts, with the control plane', () => {
  it('streams a file with its type and length; the URL it gets back serves it to users', async () => {
    const runId = await leasedRun();
    const file = join(await mkdtemp(join(tmpdir(), 'vantage-artifact-')), 'trace.zip');
    const size = 3 * 1024 * 1024 + 17;
    const content = Buffer.alloc(size, 1);
    content.write('PK', 0);
    await writeFile(file, content);
    const asset = await uploader().uploader.upload(runId, {
      name: 'trace.zip',
      contentType: 'application/zip',
      size,
      open: () => createReadStream(file),
    });
    expect(asset).toEqual({
      name: 'trace.zip',
      contentType: 'application/zip',
      size,
      url: `${TEST_PUBLIC_URL}/v1/runs/${runId}/artifacts/trace.zip`,
    });
    const served = await download(runId, 'trace.zip');
    expect(served.status).toBe(200);
    expect(served.type).toBe('application/zip');
    expect(served.body.equals(content)).toBe(true);
  });

  it('does not send an artifact over 150 MB; the asset says why', async () => {
    const runId = await leasedRun();
    const { uploader: up, logs } = uploader();
    const huge = generated('video.webm', 150 * 1024 * 1024 + 1);
    const asset = await up.upload(runId, huge);
    expect(asset).toMatchObject({ name: 'video.webm', size: huge.size, url: null });
    expect(asset.note).toMatch(/over the 150 MB limit/);
    expect(huge.opens).toBe(0);
    expect(logs.text).toContain('150 MB');
    expect((await download(runId, 'video.webm')).status).toBe(404);
  });

  it('tries an upload again while the control plane is away, with a fresh stream each time', async () => {
    const runId = await leasedRun();
    const artifact = generated('screenshot.png', 200_000);
    await server.stop();
    const uploading = uploader({ attempts: 30, baseMs: 100, maxMs: 200 }).uploader.upload(runId, artifact);
    await waitFor('two tries', () => artifact.opens >= 2);
    await server.start();
    const asset = await uploading;
    expect(asset.url).toBe(`${TEST_PUBLIC_URL}/v1/runs/${runId}/artifacts/screenshot.png`);
    expect(artifact.opens).toBeGreaterThanOrEqual(3);
    const served = await download(runId, 'screenshot.png');
    expect(served.body.length).toBe(200_000);
  });

  it('gives up on an upload the control plane refuses, with a note', async () => {
    const asset = await uploader().uploader.upload(
      'not-a-run-of-this-location',
      generated('trace.zip', 1000),
    );
    expect(asset).toMatchObject({ url: null, note: 'upload failed: the control plane answered 404' });
  });

  it('never holds up results: a check completes while the uploads are still streaming', async () => {
    // While the held run is in progress a result waits for company (2 s by default): a short wait here, so that
    // what the test times is the uploads, not the batching.
    const { agent } = await startTestAgent(
      { url: server.url, key: location.key },
      {},
      { resultBatchLingerMs: 100 },
    );
    try {
      // A run the agent holds (its target keeps it waiting), whose artifacts it uploads.
      const held = await createApiCheck(
        server,
        apiCheckAt(target.url('/held?hold'), { privateLocations: ['artifacts'] }),
      );
      const [runId] = (await runIdsOf(server, await trigger(server, [held]))) as [string];
      await waitFor('the held run at the target', () => target.count('/held') === 1);
      // Both upload slots busy for a second and a half.
      let settled = 0;
      const uploads = ['report-1.html', 'report-2.html'].map((name) =>
        agent.artifacts.upload(runId, generated(name, 15 * 1024, 100)).finally(() => settled++),
      );
      const check = await createApiCheck(
        server,
        apiCheckAt(target.url('/beside-uploads'), { privateLocations: ['artifacts'] }),
      );
      const [sessionId] = await trigger(server, [check]);
      expect((await completed(server, sessionId as string)).status).toBe('PASSED');
      expect(settled).toBe(0);
      for (const asset of await Promise.all(uploads)) expect(asset.url).not.toBeNull();
    } finally {
      target.release();
      await agent.stop();
    }
  });
});

describe('control plane: artifact uploads are tied to the lease and bounded', () => {
  /** Uploads as an agent would, with its key and agent id. */
  const put = (
    runId: string,
    name: string,
    body: Buffer,
    type = 'application/octet-stream',
    agentId = UPLOADER,
  ) =>
    fetch(`${server.url}/v1/agent/runs/${runId}/artifacts/${name}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${location.key}`,
        'x-service-account': server.accountId,
        'x-agent-id': agentId,
        'content-type': type,
      },
      body,
    });

  it('takes uploads only from the agent holding the run, while it runs, and never overwrites', async () => {
    const runId = await leasedRun();
    expect((await put(runId, 'shot.png', Buffer.from('first'), 'image/png')).status).toBe(201);
    // Another agent of the location, and the same name again.
    expect((await put(runId, 'other.png', Buffer.from('x'), 'image/png', 'someone-else')).status).toBe(409);
    expect((await put(runId, 'shot.png', Buffer.from('second'), 'image/png')).status).toBe(409);
    expect((await download(runId, 'shot.png')).body.toString()).toBe('first');
    // Once the run has ended, nothing more.
    await server.server.runs.db.query(`UPDATE runs SET status = 'done' WHERE id = $1`, [runId]);
    expect((await put(runId, 'late.png', Buffer.from('late'), 'image/png')).status).toBe(409);
    expect((await download(runId, 'late.png')).status).toBe(404);
  });

  it('keeps a run within its quota of artifacts', async () => {
    const runId = await leasedRun();
    for (let i = 0; i < 64; i++) expect((await put(runId, `s-${i}.png`, Buffer.from('x'))).status).toBe(201);
    const over = await put(runId, 's-64.png', Buffer.from('x'));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { message: string }).message).toContain('at most 64 artifacts');
  });

  it('serves every artifact as a download that no browser renders', async () => {
    const runId = await leasedRun();
    const html = Buffer.from('<script>alert(document.cookie)</script>');
    expect((await put(runId, 'report.html', html, 'text/html')).status).toBe(201);
    const response = await fetch(`${server.url}/v1/runs/${runId}/artifacts/report.html`, {
      headers: server.headers,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="report.html"');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await response.arrayBuffer()).equals(html)).toBe(true);
  });
});

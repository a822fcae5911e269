import { createReadStream } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/agent/config.js';
import { type Artifact, ArtifactUploader } from '../../src/agent/delivery/artifacts.js';
import { ControlPlaneHttp } from '../../src/agent/delivery/http-client.js';
import { createLogger } from '../../src/observability/logger.js';
import { SecretValues } from '../../src/observability/secret-values.js';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { startHttpServer } from '../support/http-servers.js';
import { LogCapture, startTestAgent, TEST_KEY } from './support/agent.js';
import { apiCheck } from './support/checks.js';

let fake: FakeControlPlane;
let http: ControlPlaneHttp | null = null;
afterEach(async () => {
  await http?.close();
  http = null;
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

function uploader(): { uploader: ArtifactUploader; logs: LogCapture } {
  const loaded = loadConfig({ API_KEY: TEST_KEY, API_URL: fake.url });
  if (!loaded.ok) throw new Error(loaded.problems.join());
  http = new ControlPlaneHttp(loaded.config);
  const logs = new LogCapture();
  const log = createLogger({ level: 'DEBUG', destination: logs, secrets: new SecretValues() });
  return {
    uploader: new ArtifactUploader({ http, log, retry: { attempts: 4, baseMs: 20, maxMs: 100 } }),
    logs,
  };
}

/** An artifact whose content is generated as it is read; counts how often it was opened. */
function generated(name: string, size: number): Artifact & { opens: number } {
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
          const n = Math.min(left, 64 * 1024);
          left -= n;
          this.push(n > 0 ? Buffer.alloc(n, 7) : null);
        },
      });
    },
  };
  return artifact;
}

describe('agent: artifacts', () => {
  it('streams a file to the control plane with its type and length, and returns its URL', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const file = join(await mkdtemp(join(tmpdir(), 'vantage-artifact-')), 'trace.zip');
    const size = 3 * 1024 * 1024 + 17;
    await writeFile(file, Buffer.alloc(size, 1));
    const asset = await uploader().uploader.upload('run/1', {
      name: 'trace.zip',
      contentType: 'application/zip',
      size,
      open: () => createReadStream(file),
    });
    expect(asset).toEqual({
      name: 'trace.zip',
      contentType: 'application/zip',
      size,
      url: `${fake.url}/artifacts/run%2F1/trace.zip`,
    });
    expect(fake.artifacts).toHaveLength(1);
    expect(fake.artifacts[0]).toMatchObject({
      runId: 'run/1',
      name: 'trace.zip',
      contentType: 'application/zip',
      contentLength: size,
      bytes: size,
    });
    expect(fake.artifacts[0]?.chunks).toBeGreaterThan(1);
  });

  it('does not send an artifact over 150 MB; the asset says why', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const { uploader: up, logs } = uploader();
    const huge = generated('video.webm', 150 * 1024 * 1024 + 1);
    const asset = await up.upload('run-2', huge);
    expect(asset).toMatchObject({ name: 'video.webm', size: huge.size, url: null });
    expect(asset.note).toMatch(/over the 150 MB limit/);
    expect(huge.opens).toBe(0);
    expect(fake.artifacts).toEqual([]);
    expect(logs.text).toContain('150 MB');
  });

  it('tries a failed upload again, with a fresh stream each time', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.artifactFailures = 2;
    const artifact = generated('screenshot.png', 200_000);
    const asset = await uploader().uploader.upload('run-3', artifact);
    expect(asset.url).toBe(`${fake.url}/artifacts/run-3/screenshot.png`);
    expect(artifact.opens).toBe(3);
    expect(fake.artifacts).toEqual([expect.objectContaining({ bytes: 200_000 })]);
  });

  it('gives up after its tries with a note, and a failing upload never holds up results', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.artifactFailures = 1000;
    const target = await startHttpServer((_req, res) => res.end('ok'));
    const { agent } = await startTestAgent(fake);
    try {
      const failing = agent.artifacts.upload('run-4', generated('report.html', 10_000));
      const run = fake.enqueue(fake.run(apiCheck(target.url('/'))));
      await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
      const last = await uploader().uploader.upload('run-5', generated('trace.zip', 1000));
      expect(last).toMatchObject({ url: null, note: 'upload failed: the control plane answered 503' });
      void failing;
    } finally {
      await agent.stop();
      await target.close();
    }
  });
});

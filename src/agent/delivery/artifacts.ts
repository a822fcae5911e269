import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Asset } from '../../checks/index.js';
import type { Logger } from '../../observability/logger.js';
import { AGENT_PATHS, PROTOCOL_LIMITS } from '../../protocol/version.js';
import { Backoff } from '../connection/backoff.js';
import type { ControlPlaneHttp } from './http-client.js';

/** A file a run produced (screenshot, trace, video, report), read as a stream when it is uploaded. */
export interface Artifact {
  name: string;
  contentType: string;
  /** Bytes; the upload sends exactly this many. */
  size: number;
  /** Opens the content; called once per upload attempt. */
  open(): Readable;
}

/** An asset of a result; `note` says why `url` is null. */
export interface UploadedAsset extends Asset {
  note?: string;
}

export interface ArtifactUploaderOptions {
  http: ControlPlaneHttp;
  log: Logger;
  /** Tries per artifact, and the back-off between them. */
  retry?: { attempts: number; baseMs: number; maxMs: number };
  /** Uploads at once, across runs. */
  concurrency?: number;
  /** Largest artifact sent (the protocol's 150 MB). */
  maxBytes?: number;
}

const MB = 1024 * 1024;

/**
 * Streams artifacts to the control plane (PUT, with Content-Type and Content-Length), at most 150 MB each: a
 * larger one is not sent, and its asset says so. A failed upload is tried again with back-off; uploads have
 * their own queue, so they never hold up results.
 */
export class ArtifactUploader {
  private readonly queue: PQueue;
  private readonly retry: { attempts: number; baseMs: number; maxMs: number };
  private readonly maxBytes: number;
  private readonly closing = new AbortController();

  constructor(private readonly options: ArtifactUploaderOptions) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    this.retry = options.retry ?? { attempts: 5, baseMs: 1000, maxMs: 30_000 };
    this.maxBytes = options.maxBytes ?? PROTOCOL_LIMITS.artifactBytes;
  }

  /** Uploads an artifact of a run; never throws: a failure becomes an asset with url null and a note. */
  upload(runId: string, artifact: Artifact, signal?: AbortSignal): Promise<UploadedAsset> {
    const asset = { name: artifact.name, contentType: artifact.contentType, size: artifact.size };
    if (artifact.size > this.maxBytes) {
      const note = `not uploaded: ${(artifact.size / MB).toFixed(1)} MB is over the ${Math.round(this.maxBytes / MB)} MB limit for an artifact`;
      this.options.log.warn({ runId, artifact: artifact.name, size: artifact.size }, note);
      return Promise.resolve({ ...asset, url: null, note });
    }
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    return this.queue
      .add(() => this.send(runId, artifact, stop))
      .then(
        (url) => ({ ...asset, url }),
        (error: Error) => ({ ...asset, url: null, note: `upload failed: ${error.message}` }),
      );
  }

  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  /** Stops every upload under way or waiting (they end with url null). */
  async close(): Promise<void> {
    this.closing.abort(new Error('the agent is shutting down'));
    await this.queue.onIdle();
  }

  private async send(runId: string, artifact: Artifact, signal: AbortSignal): Promise<string> {
    const backoff = new Backoff(this.retry.baseMs, this.retry.maxMs);
    let lastProblem = '';
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      if (attempt > 1) await sleep(Math.max(backoff.next(), this.retry.baseMs / 2), undefined, { signal });
      let answer: { status: number; body: unknown };
      try {
        answer = await this.options.http.putStream(
          AGENT_PATHS.artifact(runId, artifact.name),
          artifact.open(),
          artifact.contentType,
          artifact.size,
          signal,
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        lastProblem = (error as Error).message;
        continue;
      }
      const url = (answer.body as { url?: unknown } | null)?.url;
      if (answer.status >= 200 && answer.status < 300 && typeof url === 'string') return url;
      lastProblem = `the control plane answered ${answer.status}`;
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429)
        break;
    }
    this.options.log.warn(
      { runId, artifact: artifact.name, problem: lastProblem },
      'an artifact upload failed',
    );
    throw new Error(lastProblem);
  }
}

import { createWriteStream } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import type { AgentConfig } from '../config.js';

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** Time an answer may take before the call counts as failed. */
const ANSWER_TIMEOUT_MS = 30_000;

interface Undici {
  request: typeof import('undici').request;
  dispatcher: Dispatcher;
}

/**
 * HTTP calls to the control plane's agent routes: the key as bearer credential, the account header, proxies.
 * undici loads at the first call, not at the agent's start (≈ 0.17 s and 20 MB on Node.js 24): an agent is ready
 * once its WebSocket is up, and calls over HTTP only when it has results or artifacts to deliver.
 */
export class ControlPlaneHttp {
  private undici?: Promise<Undici>;

  /** `agentId` goes with every call as `x-agent-id`: artifacts are taken only from the agent that holds the run. */
  constructor(
    private readonly config: Pick<AgentConfig, 'apiUrl' | 'apiKey' | 'accountId' | 'proxy'>,
    private readonly agentId?: string,
  ) {}

  private loaded(): Promise<Undici> {
    this.undici ??= Promise.all([import('undici'), import('../connection/proxy-dispatcher.js')]).then(
      ([undici, proxy]) => ({
        request: undici.request,
        dispatcher: new proxy.ProxyDispatcher(this.config.proxy),
      }),
    );
    return this.undici;
  }

  /** Headers every agent request and the WebSocket upgrade carry. */
  static credentials(config: Pick<AgentConfig, 'apiKey' | 'accountId'>): Record<string, string> {
    return { authorization: `Bearer ${config.apiKey}`, 'x-service-account': config.accountId };
  }

  url(path: string): string {
    return `${this.config.apiUrl}${path}`;
  }

  async postJson(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    return this.send(
      path,
      'POST',
      JSON.stringify(body),
      {
        'content-type': 'application/json',
        ...headers,
      },
      signal,
    );
  }

  /** Posts JSON that is already text (a spooled result, streamed from its file as it was written). */
  async postJsonText(
    path: string,
    json: { body: Buffer | Readable; bytes: number },
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    const length = { 'content-type': 'application/json', 'content-length': String(json.bytes) };
    return this.send(path, 'POST', json.body, { ...length, ...headers }, signal);
  }

  /** Streams a body of known length. */
  async putStream(
    path: string,
    body: Readable,
    contentType: string,
    size: number,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    return this.send(
      path,
      'PUT',
      body,
      { 'content-type': contentType, 'content-length': String(size) },
      signal,
    );
  }

  /**
   * Streams the answer of a GET to `file`, at most `maxBytes`; returns the status (the file is written only on
   * a 2xx). The credentials go to the configured control plane only, never to a URL from a message.
   */
  async download(path: string, file: string, maxBytes: number, signal?: AbortSignal): Promise<number> {
    const { request, dispatcher } = await this.loaded();
    const answer = await request(this.url(path), {
      method: 'GET',
      headers: ControlPlaneHttp.credentials(this.config),
      dispatcher,
      headersTimeout: ANSWER_TIMEOUT_MS,
      bodyTimeout: ANSWER_TIMEOUT_MS,
      signal,
    });
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      await answer.body.dump();
      return answer.statusCode;
    }
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(received > maxBytes ? new Error(`larger than ${maxBytes} bytes`) : null, chunk);
      },
    });
    await pipeline(answer.body, limit, createWriteStream(file), { signal });
    return answer.statusCode;
  }

  async close(): Promise<void> {
    if (this.undici) await (await this.undici).dispatcher.close();
  }

  private async send(
    path: string,
    method: 'POST' | 'PUT',
    body: string | Buffer | Readable,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    const { request, dispatcher } = await this.loaded();
    const answer = await request(this.url(path), {
      method,
      body,
      headers: {
        ...ControlPlaneHttp.credentials(this.config),
        ...(this.agentId ? { 'x-agent-id': this.agentId } : {}),
        ...headers,
      },
      dispatcher,
      headersTimeout: ANSWER_TIMEOUT_MS,
      bodyTimeout: ANSWER_TIMEOUT_MS,
      signal,
    });
    const text = await answer.body.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: answer.statusCode, body: parsed };
  }
}

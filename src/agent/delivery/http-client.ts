import type { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import type { AgentConfig } from '../config.js';
import { httpDispatcher } from '../connection/proxy.js';

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** Time an answer may take before the call counts as failed. */
const ANSWER_TIMEOUT_MS = 30_000;

/** HTTP calls to the control plane's agent routes: the key as bearer credential, the account header, proxies. */
export class ControlPlaneHttp {
  private readonly dispatcher: Dispatcher;

  constructor(private readonly config: Pick<AgentConfig, 'apiUrl' | 'apiKey' | 'accountId' | 'proxy'>) {
    this.dispatcher = httpDispatcher(config.proxy);
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

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async send(
    path: string,
    method: 'POST' | 'PUT',
    body: string | Readable,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    const answer = await request(this.url(path), {
      method,
      body,
      headers: { ...ControlPlaneHttp.credentials(this.config), ...headers },
      dispatcher: this.dispatcher,
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

import { request } from 'undici';
import type { DeliveryOutcome } from './types.js';

export interface HttpSend {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** How long a receiver may take to answer one notification. */
const TIMEOUT_MS = 15_000;
/** How much of an answer is kept with the attempt. */
const ANSWER_CHARS = 300;

/** Whether an HTTP status is worth another try: the receiver is down, overloaded or asks to wait. */
function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Sends one request and says what came of it; `accepted` may refuse a 2xx answer whose body says it failed. */
export async function sendHttp(
  send: HttpSend,
  accepted: (status: number, body: string) => DeliveryOutcome | null = () => null,
): Promise<DeliveryOutcome> {
  try {
    const response = await request(send.url, {
      method: send.method as 'POST',
      headers: send.headers,
      body: send.body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const body = (await response.body.text()).slice(0, 4096);
    const status = response.statusCode;
    const answer = `HTTP ${status}${body.trim() ? `: ${body.trim().slice(0, ANSWER_CHARS)}` : ''}`;
    if (status >= 200 && status < 300) {
      return accepted(status, body) ?? { outcome: 'SENT', responseStatus: status, detail: answer };
    }
    return {
      outcome: isRetryableStatus(status) ? 'RETRY' : 'FAILED',
      responseStatus: status,
      detail: answer,
    };
  } catch (error) {
    return { outcome: 'RETRY', responseStatus: null, detail: networkErrorOf(error) };
  }
}

/** A network error in one line, without the address's path or query (they may hold tokens). */
export function networkErrorOf(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause ?? e;
  const code = cause.code ?? e.code;
  const message = (cause.message ?? e.message ?? String(error)).split('\n')[0] as string;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

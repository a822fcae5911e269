import { type ApiCheck, HTTP_METHODS, type HttpMethod, type VariableSet } from '../../checks/index.js';
import type { Exchange, ReceivedResponse } from './exchange.js';
import { responseHeaderRecord, toRecord } from './headers.js';
import { bodyOf } from './response-record.js';
import { runTimings } from './timings.js';

/**
 * The `request` and `response` globals of an API check's setup and teardown scripts, shaped as the service
 * documents them, and how what a script left in them becomes the request sent and the response assessed.
 */

export interface ScriptRequest {
  method: string;
  /** Without the query parameters, which are appended when the request is sent. */
  url: string;
  headers: Record<string, string>;
  queryParameters: Record<string, string>;
  body: string;
}

export interface ScriptResponse {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  /** The body as text. */
  body: string;
  timings: ReturnType<typeof runTimings>['timings'];
  timingPhases: ReturnType<typeof runTimings>['timingPhases'];
}

/** The check's request with its `{{VARIABLES}}` replaced: what a setup script starts from. */
export function scriptRequestOf(check: ApiCheck, variables: VariableSet): ScriptRequest {
  const sub = (text: string) => variables.substitute(text);
  const pairs = (list: { key: string; value: string }[]) =>
    toRecord(list.map((p): [string, string] => [sub(p.key), sub(p.value)]).filter(([key]) => key !== ''));
  return {
    method: check.request.method,
    url: sub(check.request.url).trim(),
    headers: pairs(check.request.headers),
    queryParameters: pairs(check.request.queryParameters),
    body: sub(check.request.body),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stringRecord(value: unknown, name: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new TypeError(`${name} must be an object`);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, text(v)]));
}

/** The request a setup script left; throws a TypeError naming what it broke. */
export function requestFromScript(value: unknown): ScriptRequest {
  if (!isObject(value)) throw new TypeError('the setup script left no request object');
  if (typeof value.url !== 'string' || value.url === '') throw new TypeError('request.url must be a string');
  const method = typeof value.method === 'string' ? value.method.toUpperCase() : '';
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new TypeError(`request.method must be one of ${HTTP_METHODS.join(', ')}`);
  }
  return {
    method,
    url: value.url.trim(),
    headers: stringRecord(value.headers, 'request.headers'),
    queryParameters: stringRecord(value.queryParameters, 'request.queryParameters'),
    body: text(value.body),
  };
}

/** The check with the script's request in place of its own; its values are final (no `{{…}}` left to replace). */
export function checkWithRequest(check: ApiCheck, request: ScriptRequest): ApiCheck {
  const list = (record: Record<string, string>) =>
    Object.entries(record).map(([key, value]) => ({ key, value, locked: false }));
  return {
    ...check,
    request: {
      ...check.request,
      method: request.method as HttpMethod,
      url: request.url,
      headers: list(request.headers),
      queryParameters: list(request.queryParameters),
      body: request.body,
    },
  };
}

export function scriptResponseOf(exchange: Exchange): ScriptResponse | null {
  const received = exchange.response;
  if (!received) return null;
  return {
    statusCode: received.status,
    statusText: received.statusText,
    headers: responseHeaderRecord(received.headers),
    body: bodyOf(received).text,
    ...runTimings(exchange.hops),
  };
}

/**
 * The response as a teardown script left it: its status, status text, headers and body are what the
 * assertions and the result see. Parts it did not change stay as received (a binary body stays binary).
 */
export function responseFromScript(
  received: ReceivedResponse,
  before: ScriptResponse,
  value: unknown,
): ReceivedResponse {
  if (!isObject(value)) throw new TypeError('the teardown script left no response object');
  const status = Number(value.statusCode);
  if (!Number.isInteger(status)) throw new TypeError('response.statusCode must be an integer');
  const body = text(value.body);
  return {
    status,
    statusText: text(value.statusText),
    headers: isObject(value.headers) ? stringRecord(value.headers, 'response.headers') : received.headers,
    body:
      body === before.body ? received.body : { data: Buffer.from(body), truncated: false, undecoded: false },
  };
}

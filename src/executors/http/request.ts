import type { ApiCheckResult, BodyType, HttpCheck, VariableSet } from '../../checks/index.js';
import { CREDENTIAL_HEADERS, MASK } from '../../checks/secrets.js';
import { placeholdersIn } from '../../checks/variables.js';

/** Request headers in the order they are sent; names as written, duplicates allowed. */
type HeaderList = [string, string][];

/** One request on the wire: the first one, or one a redirect leads to. */
export interface HopRequest {
  method: string;
  url: URL;
  headers: HeaderList;
  body: string | null;
}

/** Everything a run needs to send its request, built once from the check and its variables. */
export interface RequestPlan {
  first: HopRequest;
  /** The request as the result shows it, credentials masked. */
  record: ApiCheckResult['request'];
  family: 4 | 6;
  followRedirects: boolean;
  skipSSL: boolean;
  /** URL monitors read no body. */
  readBody: boolean;
}

/**
 * Sent unless the check sets them itself. `connection: close` lets the server close first, so that the TCP
 * TIME_WAIT of each run's connection (60 s) is kept by the server and not by the agent: an agent closing first holds
 * a local port per connection for that long, and its ports to one target (about 28,000) run out at some 470 new
 * connections a second, every connect searching longer as they fill. blackbox_exporter does the same.
 */
const DEFAULT_HEADERS: readonly [string, string][] = [
  ['user-agent', 'Vantage/0.1 (synthetic monitoring)'],
  ['accept', '*/*'],
  ['accept-encoding', 'gzip, deflate, br'],
  ['connection', 'close'],
];

/** A check whose request cannot be built (say, its URL is not a URL): the run fails before sending. */
export class InvalidRequestError extends Error {}

function parseUrl(text: string): URL {
  // Checked before parsing: `http://{{HOST}}/` parses, and would be looked up in DNS as `{{host}}`.
  const undefinedNames = placeholdersIn(text);
  if (undefinedNames.length > 0) {
    const names = undefinedNames.map((n) => `{{${n}}}`).join(', ');
    throw new InvalidRequestError(
      `the URL uses ${names}, which no variable defines (of the check, its group or the account): ${text}`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidRequestError(`invalid URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidRequestError(`invalid URL: ${text} (only http and https are supported)`);
  }
  return url;
}

/** Appends pairs to the URL's query as they are, leaving the query it already has untouched. */
function appendQuery(url: URL, pairs: [string, string][]): void {
  if (pairs.length === 0) return;
  const added = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  url.search = url.search.length > 1 ? `${url.search}&${added}` : `?${added}`;
}

/** Credentials written in the URL (`https://user:pass@host`) move to a Basic header, never to the record. */
function takeUserinfo(url: URL): { username: string; password: string } | null {
  if (url.username === '' && url.password === '') return null;
  const credentials = {
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  url.username = '';
  url.password = '';
  return credentials;
}

function basicAuthorization({ username, password }: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export function planRequest(check: HttpCheck, variables: VariableSet): RequestPlan {
  const sub = (text: string) => variables.substitute(text);
  const request = check.request;
  const url = parseUrl(sub(request.url).trim());
  const urlCredentials = takeUserinfo(url);

  let method = 'GET';
  let headers: HeaderList = [];
  let params: [string, string][] = [];
  let body: string | null = null;
  let basicAuth = urlCredentials;

  if (check.checkType === 'API') {
    const api = check.request;
    method = api.method;
    headers = api.headers.map((h): [string, string] => [sub(h.key), sub(h.value)]).filter(([k]) => k !== '');
    params = api.queryParameters.map((p): [string, string] => [sub(p.key), sub(p.value)]).filter(([k]) => k);
    const encoded = encodeBody(api.bodyType, sub(api.body));
    body = encoded.body;
    if (encoded.contentType && !hasHeader(headers, 'content-type')) {
      headers.push(['content-type', encoded.contentType]);
    }
    if (api.basicAuth && (api.basicAuth.username !== '' || api.basicAuth.password !== '')) {
      basicAuth = { username: sub(api.basicAuth.username), password: sub(api.basicAuth.password) };
    }
  }
  if (basicAuth) {
    headers = withoutHeaders(headers, ['authorization']);
    headers.push(['authorization', basicAuthorization(basicAuth)]);
  }
  for (const [name, value] of DEFAULT_HEADERS) {
    if (!hasHeader(headers, name)) headers.push([name, value]);
  }
  appendQuery(url, params);

  return {
    first: { method, url, headers, body },
    record: {
      method,
      url: url.href,
      data: body ?? '',
      headers: maskedHeaderRecord(headers),
      params: toRecord(params),
    },
    family: request.ipFamily === 'IPv6' ? 6 : 4,
    followRedirects: request.followRedirects,
    skipSSL: request.skipSSL,
    readBody: check.checkType === 'API',
  };
}

function hasHeader(headers: HeaderList, name: string): boolean {
  const lower = name.toLowerCase();
  return headers.some(([key]) => key.toLowerCase() === lower);
}

export function withoutHeaders(headers: HeaderList, names: readonly string[]): HeaderList {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return headers.filter(([key]) => !drop.has(key.toLowerCase()));
}

/** Pairs as one record; a repeated key joins its values with ', '. */
export function toRecord(pairs: Iterable<[string, string]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of pairs) record[key] = key in record ? `${record[key]}, ${value}` : value;
  return record;
}

/** Headers as a result shows them: credential values masked. */
function maskedHeaderRecord(headers: HeaderList): Record<string, string> {
  return toRecord(
    headers.map(([key, value]) => [key, CREDENTIAL_HEADERS.has(key.toLowerCase()) ? MASK : value]),
  );
}

/** The bytes a bodyType sends, and the content-type it implies (null: none added). */
interface EncodedBody {
  body: string | null;
  contentType: string | null;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function formField(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A JSON object's fields as a form (arrays repeat their key); any other text is sent as written. */
function encodeForm(body: string): string {
  const fields = parseJsonObject(body);
  if (!fields) return body;
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, formField(item));
  }
  return form.toString();
}

function encodeGraphql(body: string): string {
  const parsed = parseJsonObject(body);
  return parsed && 'query' in parsed ? body : JSON.stringify({ query: body });
}

function encodeBody(bodyType: BodyType, body: string): EncodedBody {
  switch (bodyType) {
    case 'JSON':
      return { body, contentType: 'application/json' };
    case 'FORM':
      return { body: encodeForm(body), contentType: 'application/x-www-form-urlencoded' };
    case 'RAW':
      return { body, contentType: null };
    case 'GRAPHQL':
      return { body: encodeGraphql(body), contentType: 'application/json' };
    case 'NONE':
      return { body: null, contentType: null };
  }
}

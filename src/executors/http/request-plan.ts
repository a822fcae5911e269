import { type ApiCheckResult, type HttpCheck, placeholdersIn, type VariableSet } from '../../checks/index.js';
import { type HeaderList, hasHeader, maskedHeaderRecord, toRecord, withoutHeaders } from './headers.js';
import { DEFAULT_HEADERS } from './limits.js';
import { encodeBody } from './request-body.js';

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

/** A check whose request cannot be built (say, its URL is not a URL): the run fails before sending. */
export class InvalidRequestError extends Error {}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const undefinedNames = placeholdersIn(text);
    if (undefinedNames.length > 0) {
      const names = undefinedNames.map((n) => `{{${n}}}`).join(', ');
      throw new InvalidRequestError(
        `the URL uses ${names}, which no variable defines (of the check, its group or the account): ${text}`,
      );
    }
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

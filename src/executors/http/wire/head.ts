import type { HopRequest } from '../request.js';
import { InvalidRequestError } from '../request.js';

/** RFC 9110's token: what a header name and a method may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A header value may hold tabs and visible characters, never a line break or a control character. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Headers the engine owns: it frames the body itself and speaks plain HTTP/1.1. Setting one would let a check
 * break the framing of its own request (or smuggle a second one), so the request is refused, as undici did.
 */
const REFUSED_HEADERS: Record<string, string> = {
  'transfer-encoding': 'the body is sent with a content-length',
  upgrade: 'a check does not switch protocols',
  expect: 'a check sends its body at once',
  'keep-alive': 'connections are managed by the check',
};

/** Methods whose request carries a body: without one, they say so with `content-length: 0`. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A request's head as sent, and whether it asked the server to close the connection after its response. */
export interface RequestHead {
  text: string;
  closes: boolean;
}

/**
 * The request's head as sent: the request line, `host` unless the check sets it, the check's headers in order
 * (names as written, duplicates kept), and the body's `content-length`. Throws InvalidRequestError naming the header
 * and the rule broken; a header's value is never quoted, as it may be a secret.
 */
export function requestHead(request: HopRequest, bodyBytes: number | null): RequestHead {
  const { method, url } = request;
  if (!TOKEN.test(method)) throw new InvalidRequestError(`invalid method ${JSON.stringify(method)}`);
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  let hasHost = false;
  let closes = false;
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw new InvalidRequestError(`invalid header name ${JSON.stringify(name)}`);
    if (INVALID_VALUE.test(value)) {
      throw new InvalidRequestError(`header ${name}: its value holds a line break or a control character`);
    }
    const refused = REFUSED_HEADERS[lower];
    if (refused) throw new InvalidRequestError(`header ${name} cannot be set: ${refused}`);
    if (lower === 'content-length') continue;
    if (lower === 'connection') {
      const option = value.trim().toLowerCase();
      if (option !== 'close' && option !== 'keep-alive') {
        throw new InvalidRequestError(`header ${name}: must be close or keep-alive`);
      }
      closes ||= option === 'close';
    }
    if (lower === 'host') hasHost = true;
    head += `${name}: ${value}\r\n`;
  }
  if (!hasHost) head = head.replace('\r\n', `\r\nhost: ${url.host}\r\n`);
  if (bodyBytes !== null) head += `content-length: ${bodyBytes}\r\n`;
  else if (BODY_METHODS.has(method)) head += 'content-length: 0\r\n';
  return { text: `${head}\r\n`, closes };
}

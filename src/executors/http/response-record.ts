import {
  type ApiCheckResult,
  type HttpTimingPhases,
  type HttpTimings,
  type Masker,
  secretMasker,
  type TlsDetails,
} from '../../checks/index.js';
import { bodyEncodingOf, decodeText } from './body-text.js';
import type { ReceivedResponse } from './exchange.js';
import { responseHeaderRecord } from './headers.js';

type ResponseRecord = NonNullable<ApiCheckResult['response']>;

/**
 * Bytes as base64 with secrets masked: masking the base64 text itself would miss them, so the bytes are masked as
 * latin1 text (one character a byte) first.
 */
function maskedBase64(data: Buffer, mask: Masker): string {
  if (mask.masksNothing) return data.toString('base64');
  const bytes = data.toString('latin1');
  const masked = mask(bytes);
  return (masked === bytes ? data : Buffer.from(masked, 'latin1')).toString('base64');
}

/**
 * A response's body as the result carries it (a base64 body with secrets masked), and as text for assertions and
 * scripts — decoded only when asked for or when it is the body, so a 25 MB binary body is not held twice more.
 */
export function bodyOf(
  response: ReceivedResponse,
  options: { mask?: Masker; text?: boolean } = {},
): {
  text: string;
  body: string;
  bodyEncoding: ResponseRecord['bodyEncoding'];
} {
  if (!response.body) return { text: '', body: '', bodyEncoding: null };
  const { data } = response.body;
  const contentType = response.headers['content-type'];
  const bodyEncoding = bodyEncodingOf(data, contentType);
  if (bodyEncoding === 'utf8') {
    const text = decodeText(data, contentType);
    return { text, body: text, bodyEncoding };
  }
  const text = options.text === false ? '' : decodeText(data, contentType);
  return { text, body: maskedBase64(data, options.mask ?? secretMasker([])), bodyEncoding };
}

export function responseRecord(
  response: ReceivedResponse,
  body: Pick<ResponseRecord, 'body' | 'bodyEncoding'>,
  times: { timings: HttpTimings; timingPhases: HttpTimingPhases },
  tls: TlsDetails | null,
): ResponseRecord {
  return {
    status: response.status,
    statusText: response.statusText,
    body: body.body,
    bodyEncoding: body.bodyEncoding,
    headers: responseHeaderRecord(response.headers),
    timings: times.timings,
    timingPhases: times.timingPhases,
    tls,
  };
}

import type { ApiCheckResult, HttpTimingPhases, HttpTimings, TlsDetails } from '../../checks/index.js';
import { bodyEncodingOf, decodeText } from './body-text.js';
import type { ReceivedResponse } from './exchange.js';
import { responseHeaderRecord } from './headers.js';

type ResponseRecord = NonNullable<ApiCheckResult['response']>;

/** A response's body as text for assertions, and as the result carries it. */
export function bodyOf(response: ReceivedResponse): {
  text: string;
  body: string;
  bodyEncoding: ResponseRecord['bodyEncoding'];
} {
  if (!response.body) return { text: '', body: '', bodyEncoding: null };
  const { data } = response.body;
  const contentType = response.headers['content-type'];
  const text = decodeText(data, contentType);
  const bodyEncoding = bodyEncodingOf(data, contentType);
  return { text, body: bodyEncoding === 'utf8' ? text : data.toString('base64'), bodyEncoding };
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

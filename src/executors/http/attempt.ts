import type { IncomingHttpHeaders } from 'node:http';
import { evaluateAssertions } from '../../assertions/index.js';
// The check model's own files, not its index: that would load every kind's zod schema into a pool's thread.
import type {
  ApiCheckResult,
  AssertionResult,
  HttpCheck,
  HttpTimingPhases,
  HttpTimings,
  Masker,
  TlsDetails,
} from '../../checks/index.js';
import { responseTimeFlags } from '../../checks/outcome.js';
import { secretMasker } from '../../checks/secrets.js';
import { overMaxResponseTimeMessage, type StopReason } from '../deadline.js';
import type { Attempt } from '../types.js';
import { bodyEncodingOf, decodeText } from './body.js';
import type { Exchange, ReceivedResponse } from './exchange.js';
import type { JobLog } from './job-log.js';
import { InvalidRequestError } from './request.js';
import { runTimings } from './timings.js';

export interface AttemptInput {
  check: HttpCheck;
  request: ApiCheckResult['request'];
  exchange: Exchange;
  /** Why the deadline stopped the request, if it did. */
  stopped: StopReason | null;
  /** The run's own signal, whose reason says why a stopped run was stopped. */
  runSignal: AbortSignal;
  log: JobLog;
  startedAt: Date;
  /** Why a setup or teardown script failed, if one did. */
  scriptError?: string | null;
  /** Masks the run's secrets (a base64 body is masked before it is encoded). */
  mask?: Masker;
}

function assess(check: HttpCheck, facts: ResponseFacts): Verdict & { crash: string | null } {
  try {
    return { ...judge(check, facts), crash: null };
  } catch (error) {
    return {
      assertions: [],
      failure: null,
      crash: `assertions could not be evaluated: ${describeError(error)}`,
    };
  }
}

function stopMessage(
  stopped: StopReason,
  responseTime: number,
  check: HttpCheck,
  runSignal: AbortSignal,
): string {
  if (stopped === 'overMaxResponseTime') {
    return overMaxResponseTimeMessage(responseTime, check.maxResponseTime);
  }
  const reason: unknown = runSignal.reason;
  return `the run was stopped: ${reason instanceof Error ? reason.message : String(reason ?? 'aborted')}`;
}

/** Whether an assertion of the check reads the body as text (TEXT_BODY, JSON_BODY). */
function readsBodyText(check: HttpCheck): boolean {
  return (
    check.checkType === 'API' &&
    check.request.assertions.some((a) => a.source === 'TEXT_BODY' || a.source === 'JSON_BODY')
  );
}

/** The attempt a run's exchange amounts to: flags, error line and the apiCheckResult detail. */
export function attemptOf(input: AttemptInput): Attempt {
  const { check, request, exchange, stopped, log, startedAt, scriptError = null } = input;
  const times = runTimings(exchange.hops);
  const responseTime = times.timingPhases.total;
  const flags = responseTimeFlags(responseTime, check);
  const abortedOverMax = exchange.error !== null && stopped === 'overMaxResponseTime';
  const overMaxResponseTime = abortedOverMax || flags.overMaxResponseTime;

  let requestError: string | null = null;
  if (exchange.error !== null) {
    requestError = stopped
      ? stopMessage(stopped, responseTime, check, input.runSignal)
      : describeError(exchange.error);
  } else if (scriptError !== null) {
    requestError = scriptError;
  } else if (overMaxResponseTime) {
    requestError = overMaxResponseTimeMessage(responseTime, check.maxResponseTime);
  }

  const received = exchange.response;
  let verdict: Verdict = { assertions: [], failure: null };
  let response: ApiCheckResult['response'] = null;
  if (received) {
    const body = bodyOf(received, { mask: input.mask, text: readsBodyText(check) });
    const tls = exchange.hops.at(-1)?.tls ?? null;
    response = responseRecord(received, check.checkType === 'URL' ? { ...body, body: '' } : body, times, tls);
    if (requestError === null) {
      const assessed = assess(check, { ...received, text: body.text, responseTime });
      verdict = assessed;
      requestError = assessed.crash;
    }
  }

  if (requestError !== null) log.error(requestError);
  else if (verdict.failure !== null) log.error(verdict.failure);
  log.info(`response time ${responseTime} ms`);

  // A request that could not even be built (an undefined variable in its URL) fails the same way every time.
  const unbuildable = received === null && exchange.error instanceof InvalidRequestError;
  return {
    hasErrors: requestError !== null,
    hasFailures: verdict.failure !== null,
    isDegraded: flags.isDegraded,
    overMaxResponseTime,
    responseTime,
    startedAt,
    stoppedAt: new Date(),
    networkError: received === null && exchange.error !== null && !unbuildable,
    ...(unbuildable ? { permanentError: true } : {}),
    error: requestError ?? verdict.failure,
    detail: {
      apiCheckResult: { assertions: verdict.assertions, request, response, requestError, jobLog: log.lines },
    },
  };
}

interface ResponseFacts {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  responseTime: number;
}

interface Verdict {
  assertions: AssertionResult[];
  /** Why the response fails the check, or null when it passes. */
  failure: string | null;
}

function lazyJson(text: string): () => unknown {
  let parsed: { value: unknown } | undefined;
  return () => {
    parsed ??= { value: JSON.parse(text) };
    return parsed.value;
  };
}

/** The check's assertions against a response; with none at all, a status of 400 or above fails. */
function judge(check: HttpCheck, facts: ResponseFacts): Verdict {
  const specs = check.request.assertions;
  if (specs.length === 0) {
    const failure = facts.status >= 400 ? `status ${facts.status} is 400 or above` : null;
    return { assertions: [], failure };
  }
  const assertions = evaluateAssertions(specs, {
    statusCode: facts.status,
    headers: facts.headers,
    text: facts.text,
    json: lazyJson(facts.text),
    responseTime: facts.responseTime,
  }) as AssertionResult[];
  return { assertions, failure: assertions.find((a) => a.error !== null)?.error ?? null };
}

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

function responseRecord(
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

/** Response headers as a result shows them: one string per name. */
export function responseHeaderRecord(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) record[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

/** OpenSSL's `…:SSL routines:fn:reason:file:line:SSL alert number 116` as `reason (SSL alert number 116)`. */
function opensslReason(message: string): string {
  const match = /SSL routines:[^:]*:([^:]+):[\s\S]*?(SSL alert number \d+)?\s*$/.exec(message);
  if (!match) return message;
  return match[2] ? `${match[1]} (${match[2]})` : (match[1] ?? message);
}

/** Why a request failed, in one line: the error's code and message, and the causes behind it. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  let message = error.message;
  if (message === '' && error instanceof AggregateError) {
    message = error.errors.map(describeError).join('; ');
  }
  message = opensslReason(message);
  const cause = error.cause instanceof Error ? ` (${describeError(error.cause)})` : '';
  const text = message === '' ? error.name : message;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}${cause}` : `${text}${cause}`;
}

import { type ApiCheckResult, type HttpCheck, type Masker, responseTimeFlags } from '../../checks/index.js';
import { overMaxResponseTimeMessage, type StopReason } from '../deadline.js';
import type { Attempt } from '../types.js';
import { judge, type Verdict } from './assertions.js';
import { describeError } from './errors.js';
import type { Exchange } from './exchange.js';
import type { JobLog } from './job-log.js';
import { InvalidRequestError } from './request-plan.js';
import { bodyOf, responseRecord } from './response-record.js';
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

function assess(check: HttpCheck, facts: Parameters<typeof judge>[1]): Verdict & { crash: string | null } {
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

  return {
    hasErrors: requestError !== null,
    hasFailures: verdict.failure !== null,
    isDegraded: flags.isDegraded,
    overMaxResponseTime,
    responseTime,
    startedAt,
    stoppedAt: new Date(),
    // A request that could not even be built (an undefined variable in its URL) fails the same way every time.
    networkError:
      received === null && exchange.error !== null && !(exchange.error instanceof InvalidRequestError),
    error: requestError ?? verdict.failure,
    detail: {
      apiCheckResult: { assertions: verdict.assertions, request, response, requestError, jobLog: log.lines },
    },
  };
}

import { evaluateAssertions } from '../../assertions/index.js';
import type { Assertion, AssertionResult, CheckOf, IcmpJsonResponse } from '../../checks/index.js';
import { failedAttempt } from '../failed-attempt.js';
import type { Attempt, ExecutionContext, Executor } from '../types.js';
import { rawSocketFailure } from './capability.js';
import { judgeIcmp } from './outcome.js';
import { type EchoResult, sendEchoRequests } from './pinger.js';
import { resolveTarget, TargetError } from './resolve.js';
import { icmpResponse } from './response.js';
import { PingSession } from './session.js';

export { probeIcmpCapability, RAW_SOCKET_REQUIRED } from './capability.js';

type IcmpCheck = CheckOf<'ICMP'>;

/** Why a run ended before it could be judged, and whether anything answered. */
interface Stopped {
  requestError: string;
  networkError: boolean;
}

/**
 * Pings `request.hostname` `request.pingCount` times over a raw ICMP socket and judges packet loss, average
 * latency and the assertions. Never throws: whatever goes wrong becomes a failed attempt saying why.
 */
export const executeIcmp: Executor<'ICMP'> = async (check, context) => {
  const startedAt = new Date();
  const run = { resolvedIp: null as string | null, echoes: [] as EchoResult[] };
  let stopped: Stopped | null;
  try {
    stopped = await ping(check, context, run);
  } catch (error) {
    stopped = {
      requestError: `internal error in the ICMP executor: ${messageOf(error)}`,
      networkError: false,
    };
  }
  const { hostname, ipFamily, pingCount } = check.request;
  const response = icmpResponse({ hostname, ipFamily, pingCount, ...run });
  if (stopped) return errored(stopped, response, startedAt);

  let assertions: AssertionResult[];
  try {
    assertions = assertionResults(check, response);
  } catch (error) {
    const requestError = `the assertions could not be evaluated: ${messageOf(error)}`;
    return errored({ requestError, networkError: false }, response, startedAt);
  }
  const verdict = judgeIcmp(response, assertions, check);
  return {
    hasErrors: false,
    hasFailures: verdict.hasFailures,
    isDegraded: verdict.isDegraded,
    overMaxResponseTime: verdict.overMaxResponseTime,
    responseTime: response.latency.avg ?? 0,
    startedAt,
    stoppedAt: new Date(),
    networkError: response.packetsReceived === 0,
    error: failureWithCause(verdict.error, run.echoes),
    detail: { icmpCheckResult: { assertions, response, requestError: null } },
  };
};

/** Resolves the target and pings it, filling `run`; returns why it stopped early, or null when it did not. */
async function ping(
  check: IcmpCheck,
  context: ExecutionContext,
  run: { resolvedIp: string | null; echoes: EchoResult[] },
): Promise<Stopped | null> {
  const { signal } = context;
  const { hostname, ipFamily, pingCount } = check.request;
  if (signal.aborted) return stoppedBySignal(signal, run.echoes);
  try {
    run.resolvedIp = await resolveTarget(hostname, ipFamily, signal);
  } catch (error) {
    if (signal.aborted) return stoppedBySignal(signal, run.echoes);
    if (error instanceof TargetError)
      return { requestError: error.message, networkError: error.networkError };
    throw error;
  }

  let session: PingSession;
  try {
    session = PingSession.open(ipFamily);
  } catch (error) {
    return { requestError: rawSocketFailure(error), networkError: false };
  }
  const close = () => session.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    run.echoes = await sendEchoRequests(session, run.resolvedIp, pingCount, signal);
  } finally {
    signal.removeEventListener('abort', close);
    session.close();
  }
  if (signal.aborted) return stoppedBySignal(signal, run.echoes);
  if (session.socketError) {
    return {
      requestError: `ICMP socket error: ${session.socketError.message}`,
      networkError: !run.echoes.some((echo) => echo.rtt !== null),
    };
  }
  return null;
}

function assertionResults(check: IcmpCheck, response: IcmpJsonResponse): AssertionResult[] {
  // The schema infers `comparison` as a string; it only admits the enumerated comparisons.
  const assertions = check.request.assertions as Assertion[];
  if (assertions.length === 0) return [];
  const evaluated = evaluateAssertions(assertions, { latency: response.latency, json: () => response });
  return assertions.map((assertion, i) => ({
    ...assertion,
    actual: evaluated[i]?.actual ?? null,
    error: evaluated[i]?.error ?? null,
  }));
}

/** Total loss told with what came instead of replies, e.g. an ICMP destination unreachable. */
function failureWithCause(error: string | null, echoes: readonly EchoResult[]): string | null {
  if (error === null || echoes.some((echo) => echo.rtt !== null)) return error;
  const cause = echoes.find((echo) => echo.failure !== null)?.failure;
  return cause ? `${error}: ${cause}` : error;
}

function stoppedBySignal(signal: AbortSignal, echoes: readonly EchoResult[]): Stopped {
  const reason = signal.reason instanceof Error ? signal.reason.message : 'the run was stopped';
  return {
    requestError: `pinging stopped: ${reason}`,
    networkError: !echoes.some((echo) => echo.rtt !== null),
  };
}

function errored(stopped: Stopped, response: IcmpJsonResponse, startedAt: Date): Attempt {
  return failedAttempt(stopped.requestError, {
    startedAt,
    responseTime: response.latency.avg ?? 0,
    networkError: stopped.networkError,
    detail: { icmpCheckResult: { assertions: [], response, requestError: stopped.requestError } },
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import { evaluateAssertions } from '../../assertions/index.js';
import {
  type AssertionResult,
  type CheckOf,
  responseTimeFlags,
  type TcpCheckResult,
} from '../../checks/index.js';
import { overMaxResponseTimeMessage } from '../deadline.js';
import type { Attempt } from '../types.js';
import type { ExchangeOutcome } from './exchange.js';

const NOT_EVALUATED = 'not evaluated: no connection was made';

/** The attempt record of one exchange: assertions evaluated, flags set, one line saying why it failed. */
export function attemptOf(
  check: CheckOf<'TCP'>,
  outcome: ExchangeOutcome,
  startedAt: Date,
  stoppedAt: Date,
): Attempt {
  const responseTime = outcome.phases.total;
  const flags = responseTimeFlags(responseTime, check);
  const overMaxResponseTime = outcome.overMaxResponseTime || flags.overMaxResponseTime;
  const assertions = assertionResults(check, outcome, responseTime);
  const failedAssertion = assertions.find((a) => a.error !== null);
  const requestError = outcome.failure?.message ?? null;
  const tcpCheckResult: TcpCheckResult = {
    assertions,
    response: outcome.connected ? { data: outcome.reply, timingPhases: outcome.phases } : null,
    requestError,
  };
  return {
    hasErrors: requestError !== null || overMaxResponseTime,
    hasFailures: failedAssertion !== undefined,
    isDegraded: flags.isDegraded,
    overMaxResponseTime,
    responseTime,
    startedAt,
    stoppedAt,
    networkError: !outcome.connected && outcome.failure !== null && outcome.failure.code !== 'ABORT_ERR',
    error:
      requestError ??
      (overMaxResponseTime
        ? overMaxResponseTimeMessage(responseTime, check.maxResponseTime)
        : (failedAssertion?.error ?? null)),
    detail: { tcpCheckResult },
  };
}

function assertionResults(
  check: CheckOf<'TCP'>,
  outcome: ExchangeOutcome,
  responseTime: number,
): AssertionResult[] {
  const { assertions } = check.request;
  if (!outcome.connected) return assertions.map((a) => ({ ...a, actual: null, error: NOT_EVALUATED }));
  return evaluateAssertions(assertions, { text: outcome.reply, responseTime });
}

import type dnsPacket from 'dns-packet';
import { type AssertionOutcome, evaluateAssertions } from '../../assertions/index.js';
import { type AssertionResult, type DnsCheck, responseTimeFlags } from '../../checks/index.js';
import { overMaxResponseTimeMessage } from '../deadline.js';
import type { Attempt } from '../types.js';
import { jsonAnswer, rcodeOf, textAnswer } from './answer.js';
import type { ExchangeOutcome } from './exchange.js';
import { rcodeName } from './rcode.js';

export interface Timing {
  startedAt: Date;
  stoppedAt: Date;
  /** Milliseconds from start to answer (or to giving up). */
  total: number;
  /** The wait ended because maxResponseTime ran out. */
  timedOut: boolean;
}

/** The attempt for an exchange: assertions (or the NOERROR rule) on the answer, and response-time flags. */
export function dnsAttempt(check: DnsCheck, outcome: ExchangeOutcome, timing: Timing): Attempt {
  const responseTime = Math.round(timing.total * 100) / 100;
  const flags = responseTimeFlags(responseTime, check);
  const overMaxResponseTime = flags.overMaxResponseTime || timing.timedOut;
  const response = outcome.packet ? jsonAnswer(outcome.packet) : null;
  const judged =
    outcome.packet && !outcome.error
      ? judgeAnswer(check.request.assertions, outcome.packet, responseTime)
      : { assertions: [], failure: null };
  const error =
    outcome.error ??
    judged.failure ??
    (overMaxResponseTime ? overMaxResponseTimeMessage(responseTime, check.maxResponseTime) : null);
  const phases = Object.fromEntries(
    Object.entries(outcome.phases).map(([phase, ms]) => [phase, Math.round(ms * 100) / 100]),
  );
  return {
    hasErrors: outcome.error !== null,
    hasFailures: judged.failure !== null,
    isDegraded: flags.isDegraded,
    overMaxResponseTime,
    responseTime,
    startedAt: timing.startedAt,
    stoppedAt: timing.stoppedAt,
    networkError: outcome.packet === null,
    error,
    detail: {
      dnsCheckResult: {
        assertions: judged.assertions as AssertionResult[],
        response,
        timingPhases: { ...phases, total: responseTime },
        requestError: outcome.error,
      },
    },
  };
}

/** Evaluates the assertions; without a RESPONSE_CODE assertion, any response code but NOERROR fails. */
function judgeAnswer(
  assertions: DnsCheck['request']['assertions'],
  packet: dnsPacket.DecodedPacket,
  responseTime: number,
): { assertions: AssertionOutcome[]; failure: string | null } {
  const responseCode = rcodeName(rcodeOf(packet));
  const json = jsonAnswer(packet);
  const outcomes = evaluateAssertions(assertions, {
    responseCode,
    responseTime,
    text: textAnswer(packet),
    json: () => json,
  });
  const failed = outcomes.find((a) => a.error !== null);
  if (failed) return { assertions: outcomes, failure: failed.error };
  const assertsCode = assertions.some((a) => a.source === 'RESPONSE_CODE');
  if (!assertsCode && responseCode !== 'NOERROR') {
    return { assertions: outcomes, failure: `response code ${responseCode} is not NOERROR` };
  }
  return { assertions: outcomes, failure: null };
}

import type { AssertionOutcome } from '../../assertions/index.js';
import { type IcmpJsonResponse, responseTimeFlags } from '../../checks/index.js';
import { overMaxResponseTimeMessage } from '../deadline.js';

export interface IcmpThresholds {
  degradedResponseTime: number | null;
  maxResponseTime: number | null;
  degradedPacketLossThreshold: number | null;
  maxPacketLossThreshold: number | null;
}

export interface IcmpVerdict {
  hasFailures: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  /** One line: the first reason the run failed, null when it did not. */
  error: string | null;
}

/**
 * Judges a run that pinged. A threshold is reached at its value ("the packet loss at which the monitor is
 * marked failed"): 20 % loss fails with a maximum of 20 %. Losing every packet always fails. Latency is the
 * average round trip, against the response-time thresholds.
 */
export function judgeIcmp(
  response: IcmpJsonResponse,
  assertions: readonly AssertionOutcome[],
  thresholds: IcmpThresholds,
): IcmpVerdict {
  const { packetLoss, packetsSent, packetsReceived, latency } = response;
  const { degradedPacketLossThreshold: degradedLoss, maxPacketLossThreshold: maxLoss } = thresholds;
  const lossFails = packetsReceived === 0 || (maxLoss !== null && packetLoss >= maxLoss);
  const lossDegrades = degradedLoss !== null && packetLoss >= degradedLoss;
  const byLatency =
    latency.avg === null
      ? { isDegraded: false, overMaxResponseTime: false }
      : responseTimeFlags(latency.avg, thresholds);
  const failedAssertion = assertions.find((assertion) => assertion.error !== null);

  let error: string | null = null;
  if (lossFails) {
    error = `${packetLoss}% packet loss to ${response.resolvedIp} (${packetsReceived} of ${packetsSent} echo requests answered)`;
    if (maxLoss !== null && packetsReceived > 0) error += `, at or above the maximum of ${maxLoss}%`;
  } else if (byLatency.overMaxResponseTime && latency.avg !== null) {
    error = overMaxResponseTimeMessage(latency.avg, thresholds.maxResponseTime);
  } else if (failedAssertion) {
    error = failedAssertion.error;
  }
  return {
    hasFailures: lossFails || failedAssertion !== undefined,
    isDegraded: lossDegrades || byLatency.isDegraded,
    overMaxResponseTime: byLatency.overMaxResponseTime,
    error,
  };
}

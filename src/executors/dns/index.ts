import { startDeadline } from '../deadline.js';
import type { Executor } from '../types.js';
import { exchange } from './exchange.js';
import { dnsAttempt } from './result.js';

/**
 * DNS checks: one query (dns-packet, RD set) to the check's name server or the system's resolver, over UDP
 * (a truncated answer is asked again over TCP) or TCP, within maxResponseTime and the run's signal.
 * Never throws; every socket is closed before it returns.
 */
export const executeDns: Executor<'DNS'> = async (check, context) => {
  const startedAt = new Date();
  const start = performance.now();
  const { variables } = context;
  const request = {
    ...check.request,
    query: variables.substitute(check.request.query),
    nameServer: check.request.nameServer == null ? null : variables.substitute(check.request.nameServer),
  };
  const limitMs = check.maxResponseTime;
  const deadline = startDeadline(context.signal, limitMs);
  try {
    const outcome = await exchange({ request, deadline, limitMs, runSignal: context.signal }).catch(
      (error: unknown) => ({
        packet: null,
        phases: {},
        error: `unexpected error: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
    const total = performance.now() - start;
    return dnsAttempt(check, outcome, {
      startedAt,
      stoppedAt: new Date(),
      total,
      timedOut: deadline.reason() === 'overMaxResponseTime',
    });
  } finally {
    deadline.dispose();
  }
};

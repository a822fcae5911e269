import { failedAttempt } from '../failed-attempt.js';
import type { Executor } from '../types.js';
import { attemptOf } from './attempt.js';
import { completionTest } from './completion.js';
import { exchange } from './exchange.js';
import { payloadOf } from './payload.js';

export { MAX_REPLY_BYTES, READ_IDLE_TIMEOUT_MS } from './limits.js';

/**
 * TCP check: connect to hostname:port, send `data` if any, read the reply until it is complete, and evaluate
 * RESPONSE_DATA and RESPONSE_TIME assertions. Never throws: every failure is in the attempt it returns.
 */
export const executeTcp: Executor<'TCP'> = async (check, context) => {
  const startedAt = new Date();
  const { hostname, port, ipFamily, data, assertions } = check.request;
  try {
    const payload = payloadOf(data, context.variables);
    const outcome = await exchange(
      {
        hostname,
        port,
        family: ipFamily === 'IPv6' ? 6 : 4,
        payload,
        readReply: payload !== '' || assertions.some((a) => a.source === 'RESPONSE_DATA'),
        isComplete: completionTest(assertions),
        maxResponseTime: check.maxResponseTime,
      },
      context.signal,
    );
    return attemptOf(check, outcome, startedAt, new Date());
  } catch (error) {
    const message = `TCP check failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
    return failedAttempt(message, {
      startedAt,
      detail: { tcpCheckResult: { assertions: [], response: null, requestError: message } },
    });
  }
};

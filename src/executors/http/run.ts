import type { ApiCheckResult, HttpCheck } from '../../checks/index.js';
import type { Attempt, ExecutionContext } from '../types.js';
import { runAbort } from './abort.js';
import { attemptOf } from './attempt.js';
import { exchange } from './exchange.js';
import { JobLog } from './job-log.js';
import { planRequest } from './request-plan.js';

/** The request as written in the check, for a result whose request could not even be built. */
function writtenRequest(check: HttpCheck): ApiCheckResult['request'] {
  return { method: check.request.method, url: check.request.url, data: '', headers: {}, params: {} };
}

/** One attempt of a URL monitor or API check. Never throws: every failure is an attempt with hasErrors. */
export async function runHttpCheck(check: HttpCheck, context: ExecutionContext): Promise<Attempt> {
  const startedAt = new Date();
  const log = new JobLog();
  let request = writtenRequest(check);
  try {
    const plan = planRequest(check, context.variables);
    request = plan.record;
    const abort = runAbort(context.signal, check.maxResponseTime);
    try {
      const result = await exchange(plan, {
        signal: abort.signal,
        clientCertificates: context.clientCertificates,
        log,
      });
      return attemptOf({ check, request, exchange: result, abortReason: abort.reason(), log, startedAt });
    } finally {
      abort.dispose();
    }
  } catch (error) {
    const exchangeFailed = { hops: [], response: null, error };
    return attemptOf({ check, request, exchange: exchangeFailed, abortReason: null, log, startedAt });
  }
}

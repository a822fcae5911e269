import type { ApiCheckResult, HttpCheck } from '../../checks/index.js';
import { VariableSet } from '../../checks/variables.js';
import { type StopReason, startDeadline } from '../deadline.js';
import type { Attempt, ExecutionContext, Executor } from '../types.js';
import { attemptOf } from './attempt.js';
import { type Exchange, exchange } from './exchange.js';
import { JobLog } from './job-log.js';
import { planRequest, type RequestPlan } from './request.js';
import {
  checkWithRequest,
  runSetupScript,
  runTeardownScript,
  type ScriptRequest,
  scriptOf,
  scriptRequestOf,
} from './scripts.js';

/** URL monitors: a GET whose status (and response time) is checked; no body is read. */
export const executeUrl: Executor<'URL'> = (check, context) => runHttpCheck(check, context);

/** API checks: any method, headers, query, body and auth; the body is read (up to 25 MB) for assertions. */
export const executeApi: Executor<'API'> = (check, context) => runHttpCheck(check, context);

/** A setup script's request holds final values: nothing is left to substitute. */
const NO_VARIABLES = new VariableSet();

/** The request as written in the check, for a result whose request could not even be built. */
function writtenRequest(check: HttpCheck): ApiCheckResult['request'] {
  return { method: check.request.method, url: check.request.url, data: '', headers: {}, params: {} };
}

const NOTHING_SENT: Exchange = { hops: [], response: null, error: null };

async function send(plan: RequestPlan, check: HttpCheck, context: ExecutionContext, log: JobLog) {
  const deadline = startDeadline(context.signal, check.maxResponseTime);
  try {
    const result = await exchange(plan, {
      signal: deadline.signal,
      clientCertificates: context.clientCertificates,
      log,
    });
    return { result, stopped: deadline.reason() };
  } finally {
    deadline.dispose();
  }
}

/**
 * One attempt of a URL monitor or API check. Never throws: every failure is an attempt with hasErrors.
 * An API check's setup script runs before the request is planned and may change it; its teardown script runs
 * after the exchange and before the assertions. Script time is outside the request's timings.
 */
async function runHttpCheck(check: HttpCheck, context: ExecutionContext): Promise<Attempt> {
  const startedAt = new Date();
  const log = new JobLog();
  let request = writtenRequest(check);
  const finish = (result: Exchange, stopped: StopReason | null, scriptError: string | null = null) =>
    attemptOf({
      check,
      request,
      exchange: result,
      stopped,
      runSignal: context.signal,
      log,
      startedAt,
      scriptError,
      mask: context.mask,
    });
  try {
    let planned = check;
    let variables = context.variables;
    const api = check.checkType === 'API' ? check : null;
    const setup = api && scriptOf(api, 'setup');
    const teardown = api && scriptOf(api, 'teardown');
    let scriptRequest: ScriptRequest | null = null;
    if (api && (setup !== null || teardown !== null)) {
      const run = { check: api, context, log };
      scriptRequest = scriptRequestOf(api, variables);
      if (setup !== null) {
        const outcome = await runSetupScript(setup, scriptRequest, run);
        if ('error' in outcome) return finish(NOTHING_SENT, null, outcome.error);
        scriptRequest = outcome.request;
        planned = checkWithRequest(api, scriptRequest);
        variables = NO_VARIABLES;
      }
    }
    const plan = planRequest(planned, variables);
    request = plan.record;
    const { result, stopped } = await send(plan, check, context, log);
    if (!api || !teardown || !scriptRequest || context.signal.aborted) return finish(result, stopped);
    const after = await runTeardownScript(teardown, scriptRequest, result, { check: api, context, log });
    return finish(after.exchange, stopped, after.error);
  } catch (error) {
    return finish({ hops: [], response: null, error }, null);
  }
}

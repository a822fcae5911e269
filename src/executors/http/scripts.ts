import type { ApiCheck } from '../../checks/index.js';
import { DEFAULT_RUNTIME_ID, runNodeScript, scriptSettingsFromEnv } from '../../runtimes/index.js';
import { identityOf } from '../script/identity.js';
import type { ExecutionContext } from '../types.js';
import type { Exchange } from './exchange.js';
import type { JobLog } from './job-log.js';
import {
  requestFromScript,
  responseFromScript,
  type ScriptRequest,
  scriptResponseOf,
} from './script-objects.js';

/** The service's limit for each setup or teardown script; the run's own limit applies besides. */
export const SCRIPT_TIMEOUT_MS = 10_000;

export type ScriptPhase = 'setup' | 'teardown';

/**
 * The code of a phase: `setupScript.content` (`tearDownScript.content`) when it holds any, else
 * `localSetupScript` (`localTearDownScript`); blank code is no script.
 */
export function scriptOf(check: ApiCheck, phase: ScriptPhase): string | null {
  const candidates =
    phase === 'setup'
      ? [check.setupScript?.content, check.localSetupScript]
      : [check.tearDownScript?.content, check.localTearDownScript];
  return candidates.find((code): code is string => typeof code === 'string' && code.trim() !== '') ?? null;
}

interface ScriptRun {
  check: ApiCheck;
  context: ExecutionContext;
  log: JobLog;
}

/** Runs one script in the sandbox; its output goes to the job log, masked. Resolves with its globals or why it failed. */
async function runPhase(
  phase: ScriptPhase,
  code: string,
  globals: Record<string, unknown>,
  { check, context, log }: ScriptRun,
): Promise<Record<string, unknown> | string> {
  const runtimeId = check.runtimeId ?? DEFAULT_RUNTIME_ID;
  log.info(`running the ${phase} script`);
  const result = await runNodeScript({
    code,
    globals,
    identity: identityOf(check, context, runtimeId),
    variables: context.variables.toEnv(),
    runtimeId,
    settings: scriptSettingsFromEnv(),
    signal: context.signal,
    timeoutMs: SCRIPT_TIMEOUT_MS,
  });
  log.append(result.logs.map((line) => ({ ...line, msg: context.mask(line.msg) })));
  if (result.error !== null || result.globals === null) {
    return context.mask(`the ${phase} script failed: ${result.error ?? 'it left nothing'}`);
  }
  return result.globals;
}

function failureOf(error: unknown, phase: ScriptPhase): string {
  return `the ${phase} script failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The request as the setup script left it, or why the run fails before sending anything. */
export async function runSetupScript(
  code: string,
  request: ScriptRequest,
  run: ScriptRun,
): Promise<{ request: ScriptRequest } | { error: string }> {
  const globals = await runPhase('setup', code, { request }, run);
  if (typeof globals === 'string') return { error: globals };
  try {
    return { request: requestFromScript(globals.request) };
  } catch (error) {
    return { error: run.context.mask(failureOf(error, 'setup')) };
  }
}

/**
 * Runs the teardown script after the request: it reads (and may change) the response the assertions then
 * see. Resolves with the exchange as it left it, and why it failed, if it did.
 */
export async function runTeardownScript(
  code: string,
  request: ScriptRequest,
  exchange: Exchange,
  run: ScriptRun,
): Promise<{ exchange: Exchange; error: string | null }> {
  const response = scriptResponseOf(exchange);
  const globals = await runPhase('teardown', code, { request, response }, run);
  if (typeof globals === 'string') return { exchange, error: globals };
  if (!exchange.response || !response) return { exchange, error: null };
  try {
    const changed = responseFromScript(exchange.response, response, globals.response);
    return { exchange: { ...exchange, response: changed }, error: null };
  } catch (error) {
    return { exchange, error: run.context.mask(failureOf(error, 'teardown')) };
  }
}

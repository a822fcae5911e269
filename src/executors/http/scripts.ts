import { HTTP_METHODS } from '../../checks/enums.js';
import type { ApiCheck, HttpMethod, VariableSet } from '../../checks/index.js';
import { identityOf } from '../script/identity.js';
import type { ExecutionContext } from '../types.js';
import { bodyOf, responseHeaderRecord } from './attempt.js';
import type { Exchange, ReceivedResponse } from './exchange.js';
import type { JobLog } from './job-log.js';
import { toRecord } from './request.js';
import { runTimings } from './timings.js';

/** The service's limit for each setup or teardown script; the run's own limit applies besides. */
const SCRIPT_TIMEOUT_MS = 10_000;

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
  // The runtimes and their sandbox load with the first script: most API checks have none.
  const { DEFAULT_RUNTIME_ID, runNodeScript, scriptSettingsFromEnv } = await import(
    '../../runtimes/index.js'
  );
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

/**
 * The `request` and `response` globals of an API check's setup and teardown scripts, shaped as the service
 * documents them, and how what a script left in them becomes the request sent and the response assessed.
 */

export interface ScriptRequest {
  method: string;
  /** Without the query parameters, which are appended when the request is sent. */
  url: string;
  headers: Record<string, string>;
  queryParameters: Record<string, string>;
  body: string;
}

interface ScriptResponse {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  /** The body as text. */
  body: string;
  timings: ReturnType<typeof runTimings>['timings'];
  timingPhases: ReturnType<typeof runTimings>['timingPhases'];
}

/** The check's request with its `{{VARIABLES}}` replaced: what a setup script starts from. */
export function scriptRequestOf(check: ApiCheck, variables: VariableSet): ScriptRequest {
  const sub = (text: string) => variables.substitute(text);
  const pairs = (list: { key: string; value: string }[]) =>
    toRecord(list.map((p): [string, string] => [sub(p.key), sub(p.value)]).filter(([key]) => key !== ''));
  return {
    method: check.request.method,
    url: sub(check.request.url).trim(),
    headers: pairs(check.request.headers),
    queryParameters: pairs(check.request.queryParameters),
    body: sub(check.request.body),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stringRecord(value: unknown, name: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new TypeError(`${name} must be an object`);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, text(v)]));
}

/** The request a setup script left; throws a TypeError naming what it broke. */
function requestFromScript(value: unknown): ScriptRequest {
  if (!isObject(value)) throw new TypeError('the setup script left no request object');
  if (typeof value.url !== 'string' || value.url === '') throw new TypeError('request.url must be a string');
  const method = typeof value.method === 'string' ? value.method.toUpperCase() : '';
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new TypeError(`request.method must be one of ${HTTP_METHODS.join(', ')}`);
  }
  return {
    method,
    url: value.url.trim(),
    headers: stringRecord(value.headers, 'request.headers'),
    queryParameters: stringRecord(value.queryParameters, 'request.queryParameters'),
    body: text(value.body),
  };
}

/** The check with the script's request in place of its own; its values are final (no `{{…}}` left to replace). */
export function checkWithRequest(check: ApiCheck, request: ScriptRequest): ApiCheck {
  const list = (record: Record<string, string>) =>
    Object.entries(record).map(([key, value]) => ({ key, value, locked: false }));
  return {
    ...check,
    request: {
      ...check.request,
      method: request.method as HttpMethod,
      url: request.url,
      headers: list(request.headers),
      queryParameters: list(request.queryParameters),
      body: request.body,
    },
  };
}

function scriptResponseOf(exchange: Exchange): ScriptResponse | null {
  const received = exchange.response;
  if (!received) return null;
  return {
    statusCode: received.status,
    statusText: received.statusText,
    headers: responseHeaderRecord(received.headers),
    body: bodyOf(received).text,
    ...runTimings(exchange.hops),
  };
}

/**
 * The response as a teardown script left it: its status, status text, headers and body are what the
 * assertions and the result see. Parts it did not change stay as received (a binary body stays binary).
 */
function responseFromScript(
  received: ReceivedResponse,
  before: ScriptResponse,
  value: unknown,
): ReceivedResponse {
  if (!isObject(value)) throw new TypeError('the teardown script left no response object');
  const status = Number(value.statusCode);
  if (!Number.isInteger(status)) throw new TypeError('response.statusCode must be an integer');
  const body = text(value.body);
  return {
    status,
    statusText: text(value.statusText),
    headers: isObject(value.headers) ? stringRecord(value.headers, 'response.headers') : received.headers,
    body:
      body === before.body ? received.body : { data: Buffer.from(body), truncated: false, undecoded: false },
  };
}

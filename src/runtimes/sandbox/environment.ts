import type { RunFolder } from './run-folder.js';

/** Who a script runs for; each value reaches the script as a documented variable. */
export interface ScriptIdentity {
  checkId: string;
  checkName: string;
  checkType: string;
  runId: string;
  /** The run location. */
  region: string;
  /** The runtime id (BROWSER, MULTI_STEP) or the engine (PLAYWRIGHT). */
  runtimeVersion: string;
}

/** The variables every script finds besides the check's own; they win over check variables of the same name. */
export const RUNTIME_VARIABLES = [
  'CHECK_ID',
  'CHECK_NAME',
  'CHECK_RUN_ID',
  'CHECK_TYPE',
  'REGION',
  'RUNTIME_VERSION',
  'HOME',
  'TMPDIR',
  'PATH',
  'LANG',
] as const;

const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * The whole environment of a script: `defaults` (settings a check may change, e.g. npm's cache), the check's
 * variables, the runtime variables, then `extra` (settings of the runner a check may not change). Nothing of
 * the agent's own environment is passed on.
 */
export function scriptEnvironment(
  identity: ScriptIdentity,
  variables: Record<string, string>,
  folder: RunFolder,
  options: {
    path?: readonly string[];
    defaults?: Record<string, string>;
    extra?: Record<string, string>;
  } = {},
): Record<string, string> {
  const env: Record<string, string> = { ...options.defaults };
  for (const [key, value] of Object.entries(variables)) {
    if (key !== '' && !key.includes('=') && !key.includes('\0') && !value.includes('\0')) env[key] = value;
  }
  Object.assign(env, {
    CHECK_ID: identity.checkId,
    CHECK_NAME: identity.checkName,
    CHECK_RUN_ID: identity.runId,
    CHECK_TYPE: identity.checkType,
    REGION: identity.region,
    RUNTIME_VERSION: identity.runtimeVersion,
    HOME: folder.work,
    TMPDIR: folder.tmp,
    PATH: [...new Set([...(options.path ?? []), ...SYSTEM_PATH])].join(':'),
    LANG: 'C.UTF-8',
    ...options.extra,
  });
  return env;
}

/** An entry of the environment of every process of the run and of no other: how its processes are found. */
export function runMarker(folder: RunFolder): string {
  return `HOME=${folder.work}`;
}

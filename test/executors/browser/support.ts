/** What the script-check tests share: checks as a user writes them, one run as the agent runs it, leftovers. */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import {
  type Check,
  parseCheck,
  secretMasker,
  type Variable,
  VariableSet,
} from '../../../src/checks/index.js';
import { defaultExecutors, type ExecutorRegistry } from '../../../src/executors/registry.js';
import { runAttempt } from '../../../src/executors/run/attempt.js';
import { statusOfAttempt } from '../../../src/executors/run/session.js';
import { discardArtifacts } from '../../../src/executors/script/settle-artifacts.js';
import type { Attempt } from '../../../src/executors/types.js';
import { findChromium } from '../../../src/runtimes/index.js';

/** Debian's Chromium, which .ci/run installs; without it (outside CI) the browser tests are skipped. */
export const noChromium = !findChromium(process.env.CHROMIUM_PATH ?? null) && !process.env.CI;

/** A check as a user would write it, validated by the check model. */
export function scriptCheck(fields: Record<string, unknown>): Check {
  const parsed = parseCheck({ name: `script ${randomUUID().slice(0, 8)}`, ...fields });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

export interface ScriptOutcome {
  status: string;
  attempt: Attempt;
  detail: {
    errors: string[];
    logs: { level: string; msg: string }[];
    assets: { name: string; contentType: string; size: number; url: string | null }[];
    tests: Record<string, any>[];
  };
}

/** Runs one attempt the way the agent does (execution limit, cancel, masking) and gives its status. */
export async function runScript(
  check: Check,
  options: {
    variables?: Variable[];
    limitMs?: number;
    signal?: AbortSignal;
    executors?: Partial<ExecutorRegistry>;
  } = {},
): Promise<ScriptOutcome> {
  const variables = new VariableSet(options.variables, check.environmentVariables);
  const end = await runAttempt(check, {
    executors: { ...defaultExecutors, ...options.executors },
    variables,
    mask: secretMasker(variables.secretValues()),
    runLocation: 'test-location',
    clientCertificates: [],
    limitMs: options.limitMs,
    signal: options.signal,
  });
  const detail = Object.values(end.attempt.detail)[0] as ScriptOutcome['detail'];
  return { status: statusOfAttempt(check, end), attempt: end.attempt, detail };
}

/** Removes the files an attempt left for its caller. */
export const cleanUp = (outcome: ScriptOutcome) => discardArtifacts(outcome.attempt.artifacts);

/** Live processes (zombies aside) whose environment holds `KEY=value`: what a run left behind. */
export async function processesWith(entry: string, command?: RegExp): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === '' || state === 'Z' || state === 'X') continue;
    if (command && !command.test(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) continue;
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (`\0${environ}`.includes(`\0${entry}\0`)) found.push(Number(pid));
  }
  return found;
}

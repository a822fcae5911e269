import { type ScriptSettings, scriptSettingsFromEnv } from '../../runtimes/index.js';
import type { Executor } from '../types.js';
import { runBrowserScript } from './run.js';

export type BrowserExecutorOptions = Partial<ScriptSettings>;

/** The settings of a run: the environment's (see scriptSettingsFromEnv), then the executor's options. */
const settingsOf = (options: BrowserExecutorOptions): ScriptSettings => ({
  ...scriptSettingsFromEnv(),
  ...options,
});

/** BROWSER checks: the script is a Playwright test run against Chromium on the check's runtime. */
export function createBrowserExecutor(options: BrowserExecutorOptions = {}): Executor<'BROWSER'> {
  return (check, context) => runBrowserScript(check, context, settingsOf(options));
}

/** MULTI_STEP checks: the same runner with Playwright's request API, and no browser. */
export function createMultiStepExecutor(options: BrowserExecutorOptions = {}): Executor<'MULTI_STEP'> {
  return (check, context) => runBrowserScript(check, context, settingsOf(options));
}

export const executeBrowser = createBrowserExecutor();
export const executeMultiStep = createMultiStepExecutor();

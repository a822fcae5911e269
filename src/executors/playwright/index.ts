import { type ScriptSettings, scriptSettingsFromEnv } from '../../runtimes/index.js';
import type { Executor } from '../types.js';
import { runCheckSuite } from './run.js';

/** PLAYWRIGHT check suites, with the environment's settings (see scriptSettingsFromEnv) and `options` over them. */
export function createPlaywrightExecutor(options: Partial<ScriptSettings> = {}): Executor<'PLAYWRIGHT'> {
  return (check, context) => runCheckSuite(check, context, { ...scriptSettingsFromEnv(), ...options });
}

export const executePlaywright = createPlaywrightExecutor();

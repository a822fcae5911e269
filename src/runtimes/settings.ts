import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type EnvValues,
  envSchema,
  oneOf,
  optional,
  parsedBy,
  parseEnv,
  type SameNames,
  SettingsError,
  text,
  wholeNumber,
  withDefault,
} from '../config/env.js';
import type { SANDBOX_ENV_NAMES } from './env-names.js';
import {
  parseScriptUser,
  parseUidRange,
  resolveScriptUsers,
  type ScriptUsers,
} from './sandbox/script-users.js';

/** Videos of BROWSER runs: none, every test's, or only failed tests'. */
export const BROWSER_VIDEO_MODES = ['off', 'on', 'retain-on-failure'] as const;
export type BrowserVideo = (typeof BROWSER_VIDEO_MODES)[number];

/** Where scripts run and what they run with; read from the environment, overridable per executor. */
export interface ScriptSettings {
  /** The folder holding the runtime folders (`2026.04/`, …) and `engines/`. */
  runtimesDir: string;
  /** Each run gets a folder of its own under this one; it is removed when the run ends. */
  workDir: string;
  /** Installed dependencies of check suites, keyed on their lockfile, and npm's download cache. */
  cacheDir: string;
  /** The Chromium (or Chrome) executable; when unset, the usual Debian and Ubuntu paths are tried. */
  chromiumPath: string | null;
  /** An ffmpeg executable for videos of browser runs; none means videos cannot be recorded. */
  ffmpegPath: string | null;
  /** Memory cap of each process of a script, in MiB. */
  memoryLimitMb: number;
  /** The users scripts run as (see resolveScriptUsers). */
  scriptUsers: ScriptUsers;
  /** Video of every BROWSER test: off, on, or kept only for failed tests. A script may ask with test.use. */
  video: BrowserVideo;
}

/** `runtimes/` at the top of this project, the same from `src/` and from `dist/`. */
const BUNDLED_RUNTIMES = fileURLToPath(new URL('../../runtimes/', import.meta.url));

/**
 * The sandbox's environment settings (docs/browser-checks.md, "Settings"): part of the agent's own, and read by
 * `vantage run` and `vantage dev` at start.
 */
export const SANDBOX_ENV = envSchema({
  VANTAGE_RUNTIMES_DIR: optional(text()),
  VANTAGE_WORK_DIR: optional(text()),
  VANTAGE_CACHE_DIR: optional(text()),
  CHROMIUM_PATH: optional(text()),
  FFMPEG_PATH: optional(text()),
  VANTAGE_SCRIPT_MEMORY_MB: withDefault(wholeNumber(64, 1_048_576), 2048),
  VANTAGE_SCRIPT_USERS: optional(parsedBy(parseUidRange, 'must be FIRST-LAST, a range of uids above 0')),
  VANTAGE_SCRIPT_USER: optional(
    parsedBy(parseScriptUser, 'must be same, or UID:GID of the one user every script runs as'),
  ),
  VANTAGE_USER_SWITCH: optional(text()),
  VANTAGE_BROWSER_VIDEO: withDefault(oneOf(BROWSER_VIDEO_MODES), 'off'),
});
export type SandboxEnv = EnvValues<typeof SANDBOX_ENV>;

true satisfies SameNames<typeof SANDBOX_ENV, typeof SANDBOX_ENV_NAMES>;

/** The settings of valid sandbox values (the work and cache folders: in the system's temporary folder by default). */
export function scriptSettingsOf(e: SandboxEnv): ScriptSettings {
  return {
    runtimesDir: resolve(e.VANTAGE_RUNTIMES_DIR ?? BUNDLED_RUNTIMES),
    workDir: resolve(e.VANTAGE_WORK_DIR ?? join(tmpdir(), 'vantage-runs')),
    cacheDir: resolve(e.VANTAGE_CACHE_DIR ?? join(tmpdir(), 'vantage-cache')),
    chromiumPath: e.CHROMIUM_PATH ?? null,
    ffmpegPath: e.FFMPEG_PATH ?? null,
    memoryLimitMb: e.VANTAGE_SCRIPT_MEMORY_MB,
    scriptUsers: resolveScriptUsers({
      user: e.VANTAGE_SCRIPT_USER,
      range: e.VANTAGE_SCRIPT_USERS,
      userSwitch: e.VANTAGE_USER_SWITCH,
    }),
    video: e.VANTAGE_BROWSER_VIDEO,
  };
}

/**
 * The settings from the environment, strictly: a value that breaks its rule throws a SettingsError with its
 * `NAME: what is wrong` line (the commands check the environment at start, so a run never meets one).
 */
export function scriptSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ScriptSettings {
  const parsed = parseEnv(SANDBOX_ENV, env);
  if (!parsed.ok) throw new SettingsError(parsed.problems);
  return scriptSettingsOf(parsed.values);
}

import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveScriptUsers, type ScriptUsers } from './sandbox/script-users.js';

/** Where scripts run and what they run with; read once from the environment, overridable per executor. */
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
}

/** `runtimes/` at the top of this project, the same from `src/` and from `dist/`. */
const BUNDLED_RUNTIMES = fileURLToPath(new URL('../../runtimes/', import.meta.url));

const DEFAULT_MEMORY_LIMIT_MB = 2048;

/**
 * The settings from the environment: `VANTAGE_RUNTIMES_DIR`, `VANTAGE_WORK_DIR` (a folder of the system's
 * temporary folder by default), `VANTAGE_CACHE_DIR`, `CHROMIUM_PATH`, `FFMPEG_PATH`,
 * `VANTAGE_SCRIPT_MEMORY_MB`, and `VANTAGE_SCRIPT_USER`, `VANTAGE_SCRIPT_USERS` and `VANTAGE_USER_SWITCH`
 * for the users scripts run as.
 */
export function scriptSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ScriptSettings {
  const memory = Number(env.VANTAGE_SCRIPT_MEMORY_MB);
  return {
    runtimesDir: resolve(env.VANTAGE_RUNTIMES_DIR || BUNDLED_RUNTIMES),
    workDir: resolve(env.VANTAGE_WORK_DIR || join(tmpdir(), 'vantage-runs')),
    cacheDir: resolve(env.VANTAGE_CACHE_DIR || join(tmpdir(), 'vantage-cache')),
    chromiumPath: env.CHROMIUM_PATH || null,
    ffmpegPath: env.FFMPEG_PATH || null,
    memoryLimitMb: Number.isInteger(memory) && memory >= 64 ? memory : DEFAULT_MEMORY_LIMIT_MB,
    scriptUsers: resolveScriptUsers(env),
  };
}

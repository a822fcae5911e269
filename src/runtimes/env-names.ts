/**
 * The sandbox's environment settings by name, without their rules (settings.ts holds those): `vantage run --help`
 * lists them without loading the schema library.
 */
export const SANDBOX_ENV_NAMES = [
  'VANTAGE_RUNTIMES_DIR',
  'VANTAGE_WORK_DIR',
  'VANTAGE_CACHE_DIR',
  'CHROMIUM_PATH',
  'FFMPEG_PATH',
  'VANTAGE_SCRIPT_MEMORY_MB',
  'VANTAGE_SCRIPT_USERS',
  'VANTAGE_SCRIPT_USER',
  'VANTAGE_USER_SWITCH',
  'VANTAGE_BROWSER_VIDEO',
] as const;

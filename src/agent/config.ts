import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { LOG_LEVELS, type LogLevelName } from '../observability/logger.js';
import { parseLocationKey } from '../protocol/index.js';
import { parseRange } from '../runtimes/sandbox/script-users.js';

/** Everything the agent is configured with, read from its environment. */
export interface AgentConfig {
  apiKey: string;
  accountId: string;
  /** The location slug the key names. */
  location: string;
  /** The control plane's base URL, without a trailing slash. */
  apiUrl: string;
  jobConcurrency: number;
  browserConcurrency: number;
  /** 0 picks a free port (tests). */
  healthPort: number;
  logLevel: LogLevelName;
  externalObservability: boolean;
  dataDir: string;
  shutdownGraceSeconds: number;
  spoolMaxBytes: number;
  /** Multiplies every kind's execution limit; below 1 only to make tests fast. */
  runLimitScale: number;
  proxy: { httpsProxy?: string; httpProxy?: string; noProxy?: string };
}

export type ConfigResult = { ok: true; config: AgentConfig } | { ok: false; problems: string[] };

const KEY_FORM = 'a private-location key like pl_<account>.<location>.<secret>';

/** Unset and empty are the same: the default applies. */
const emptyIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(emptyIsUnset, schema.optional());

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\s*\d+\s*$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const positiveNumber = (max: number) =>
  z
    .string()
    .transform(Number)
    .refine((n) => Number.isFinite(n) && n > 0 && n <= max, `must be a number above 0, at most ${max}`);

const httpUrl = (example: string, requiredMessage?: string) =>
  z
    .string(requiredMessage ? { error: requiredMessage } : undefined)
    .trim()
    .refine((v) => {
      try {
        const url = new URL(v);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, `must be an http:// or https:// URL like ${example}`);

const envSchema = z.object({
  API_KEY: z.preprocess(
    emptyIsUnset,
    z
      .string({ error: `is required: the location's key, ${KEY_FORM}` })
      .refine((v) => parseLocationKey(v) !== null, `must be ${KEY_FORM}`),
  ),
  API_URL: z.preprocess(
    emptyIsUnset,
    httpUrl(
      'https://vantage.internal:3000',
      'is required: the control plane base URL, like https://vantage.internal:3000',
    ),
  ),
  JOB_CONCURRENCY: optional(wholeNumber(1, 1000)),
  BROWSER_CONCURRENCY: optional(wholeNumber(0, 100)),
  AGENT_HEALTH_PORT: optional(wholeNumber(0, 65535)),
  LOG_LEVEL: optional(
    z
      .string()
      .transform((v) => v.trim().toUpperCase())
      .refine(
        (v) => (LOG_LEVELS as readonly string[]).includes(v),
        `must be one of ${LOG_LEVELS.join(', ')}`,
      ),
  ),
  EXTERNAL_OBSERVABILITY: optional(
    z
      .string()
      .transform((v) => v.trim().toLowerCase())
      .refine((v) => ['on', 'off', 'true', 'false', '1', '0'].includes(v), 'must be on or off'),
  ),
  AGENT_DATA_DIR: optional(z.string()),
  SHUTDOWN_GRACE_SECONDS: optional(wholeNumber(0, 86_400)),
  AGENT_SPOOL_MAX_MB: optional(positiveNumber(1_000_000)),
  AGENT_RUN_LIMIT_SCALE: optional(positiveNumber(1)),
  HTTPS_PROXY: optional(httpUrl('http://proxy.internal:3128')),
  HTTP_PROXY: optional(httpUrl('http://proxy.internal:3128')),
  NO_PROXY: optional(z.string()),
  NODE_EXTRA_CA_CERTS: optional(
    z.string().refine(readable, 'must name a readable PEM file of extra CA certificates'),
  ),
  // The sandbox of scripts (src/runtimes/settings.ts reads them): checked here so that a mistyped one stops the
  // agent at start instead of being replaced by a default.
  VANTAGE_SCRIPT_MEMORY_MB: optional(wholeNumber(64, 1_048_576)),
  VANTAGE_SCRIPT_USERS: optional(
    z
      .string()
      .refine((v) => !(parseRange(v) instanceof Error), 'must be FIRST-LAST, a range of uids above 0'),
  ),
  VANTAGE_SCRIPT_USER: optional(
    z.string().regex(/^(same|\d+:\d+)$/, 'must be same, or UID:GID of the one user every script runs as'),
  ),
  VANTAGE_USER_SWITCH: optional(z.string()),
  VANTAGE_RUNTIMES_DIR: optional(z.string()),
  VANTAGE_WORK_DIR: optional(z.string()),
  VANTAGE_CACHE_DIR: optional(z.string()),
  CHROMIUM_PATH: optional(z.string()),
  FFMPEG_PATH: optional(z.string()),
  VANTAGE_BROWSER_VIDEO: optional(
    z
      .string()
      .refine((v) => ['off', 'on', 'retain-on-failure'].includes(v), 'must be off, on or retain-on-failure'),
  ),
});

/** Every environment setting of the agent, for `vantage agent --help`. */
export const AGENT_ENV_NAMES = Object.keys(envSchema.shape);

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export const DEFAULTS = {
  jobConcurrency: 10,
  browserConcurrency: 1,
  healthPort: 8081,
  logLevel: 'INFO',
  dataDir: '.vantage-agent',
  shutdownGraceSeconds: 30,
  spoolMaxMb: 512,
} as const;

/** Proxy variables are honoured in either case, as curl and most tools do; upper case wins. */
function withProxyAliases(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    HTTPS_PROXY: env.HTTPS_PROXY ?? env.https_proxy,
    HTTP_PROXY: env.HTTP_PROXY ?? env.http_proxy,
    NO_PROXY: env.NO_PROXY ?? env.no_proxy,
  };
}

/** Reads the agent's settings; every problem is one line `NAME: what is wrong`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConfigResult {
  const parsed = envSchema.safeParse(withProxyAliases(env));
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`) };
  }
  const e = parsed.data;
  const key = parseLocationKey(e.API_KEY);
  if (!key) return { ok: false, problems: [`API_KEY: must be ${KEY_FORM}`] };
  const observability = e.EXTERNAL_OBSERVABILITY ?? 'on';
  return {
    ok: true,
    config: {
      apiKey: e.API_KEY.trim(),
      accountId: key.accountId,
      location: key.location,
      apiUrl: e.API_URL.replace(/\/+$/, ''),
      jobConcurrency: e.JOB_CONCURRENCY ?? DEFAULTS.jobConcurrency,
      browserConcurrency: e.BROWSER_CONCURRENCY ?? DEFAULTS.browserConcurrency,
      healthPort: e.AGENT_HEALTH_PORT ?? DEFAULTS.healthPort,
      logLevel: (e.LOG_LEVEL ?? DEFAULTS.logLevel) as LogLevelName,
      externalObservability: !['off', 'false', '0'].includes(observability),
      dataDir: resolve(e.AGENT_DATA_DIR ?? DEFAULTS.dataDir),
      shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS ?? DEFAULTS.shutdownGraceSeconds,
      spoolMaxBytes: Math.round((e.AGENT_SPOOL_MAX_MB ?? DEFAULTS.spoolMaxMb) * 1024 * 1024),
      runLimitScale: e.AGENT_RUN_LIMIT_SCALE ?? 1,
      proxy: { httpsProxy: e.HTTPS_PROXY, httpProxy: e.HTTP_PROXY, noProxy: e.NO_PROXY },
    },
  };
}

import { resolve } from 'node:path';
import {
  envSchema,
  httpUrl,
  type Loaded,
  logLevel,
  onOff,
  optional,
  parsedBy,
  parseEnv,
  positiveNumber,
  readableFile,
  required,
  type SameNames,
  text,
  wholeNumber,
  withDefault,
} from '../config/env.js';
import type { LogLevelName } from '../observability/log-levels.js';
import { parseLocationKey } from '../protocol/keys.js';
import { SANDBOX_ENV } from '../runtimes/settings.js';
import type { AGENT_ENV_NAMES } from './env-names.js';

/** Everything the agent is configured with, read from its environment. */
export interface AgentConfig {
  apiKey: string;
  accountId: string;
  /** The location slug the key names. */
  location: string;
  /** The control plane's base URL, without a trailing slash. */
  apiUrl: string;
  jobConcurrency: number;
  /** Worker threads for URL, API, TCP and DNS runs: a number, or `auto` (one lane per core, once busy). */
  threads: number | 'auto';
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

export type ConfigResult = Loaded<AgentConfig>;

const KEY_FORM = 'a private-location key like pl_<account>.<location>.<secret>';

export const DEFAULTS = {
  jobConcurrency: 10,
  threads: 'auto',
  browserConcurrency: 1,
  healthPort: 8081,
  logLevel: 'INFO',
  dataDir: '.vantage-agent',
  shutdownGraceSeconds: 30,
  spoolMaxMb: 512,
} as const;

/** More threads than cores only compete for them; this bounds a typing slip, not a machine. */
const MAX_THREADS = 256;

const proxyUrl = () => optional(httpUrl('http://proxy.internal:3128'));

/** Where the agent connects to: the settings `vantage dev` gives it itself. */
const CONNECTION = {
  API_KEY: required(
    parsedBy((v) => {
      const key = parseLocationKey(v);
      return key && { ...key, text: v.trim() };
    }, `must be ${KEY_FORM}`),
    `the location's key, ${KEY_FORM}`,
  ),
  API_URL: required(
    httpUrl('https://vantage.internal:3000'),
    'the control plane base URL, like https://vantage.internal:3000',
  ),
};

/** The agent's own settings and those of the sandbox its scripts run in. */
const SETTINGS = envSchema({
  JOB_CONCURRENCY: withDefault(wholeNumber(1, 1000), DEFAULTS.jobConcurrency),
  AGENT_THREADS: withDefault(
    parsedBy<number | 'auto'>((v) => {
      const value = v.trim().toLowerCase();
      if (value === 'auto') return 'auto';
      return /^\d+$/.test(value) && Number(value) <= MAX_THREADS ? Number(value) : null;
    }, `must be auto or a whole number from 0 to ${MAX_THREADS}`),
    DEFAULTS.threads,
  ),
  BROWSER_CONCURRENCY: withDefault(wholeNumber(0, 100), DEFAULTS.browserConcurrency),
  AGENT_HEALTH_PORT: withDefault(wholeNumber(0, 65535), DEFAULTS.healthPort),
  LOG_LEVEL: withDefault(logLevel(), DEFAULTS.logLevel),
  EXTERNAL_OBSERVABILITY: withDefault(onOff(), true),
  AGENT_DATA_DIR: withDefault(text(), DEFAULTS.dataDir),
  SHUTDOWN_GRACE_SECONDS: withDefault(wholeNumber(0, 86_400), DEFAULTS.shutdownGraceSeconds),
  AGENT_SPOOL_MAX_MB: withDefault(positiveNumber(1_000_000), DEFAULTS.spoolMaxMb),
  AGENT_RUN_LIMIT_SCALE: withDefault(positiveNumber(1), 1),
  HTTPS_PROXY: proxyUrl(),
  HTTP_PROXY: proxyUrl(),
  NO_PROXY: optional(text()),
  NODE_EXTRA_CA_CERTS: optional(readableFile('PEM file of extra CA certificates')),
  ...SANDBOX_ENV.shape,
});

const agentEnv = envSchema({ ...CONNECTION, ...SETTINGS.shape });

true satisfies SameNames<typeof agentEnv, typeof AGENT_ENV_NAMES>;

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
  const parsed = parseEnv(agentEnv, withProxyAliases(env));
  if (!parsed.ok) return parsed;
  const e = parsed.values;
  return {
    ok: true,
    config: {
      apiKey: e.API_KEY.text,
      accountId: e.API_KEY.accountId,
      location: e.API_KEY.location,
      apiUrl: e.API_URL.replace(/\/+$/, ''),
      jobConcurrency: e.JOB_CONCURRENCY,
      threads: e.AGENT_THREADS,
      browserConcurrency: e.BROWSER_CONCURRENCY,
      healthPort: e.AGENT_HEALTH_PORT,
      logLevel: e.LOG_LEVEL,
      externalObservability: e.EXTERNAL_OBSERVABILITY,
      dataDir: resolve(e.AGENT_DATA_DIR),
      shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
      spoolMaxBytes: Math.round(e.AGENT_SPOOL_MAX_MB * 1024 * 1024),
      runLimitScale: e.AGENT_RUN_LIMIT_SCALE,
      proxy: { httpsProxy: e.HTTPS_PROXY, httpProxy: e.HTTP_PROXY, noProxy: e.NO_PROXY },
    },
  };
}

/**
 * The problems of every setting but the connection (API_KEY, API_URL): `vantage dev` checks them at start and
 * gives the agent its connection itself.
 */
export function settingsProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  const parsed = parseEnv(SETTINGS, withProxyAliases(env));
  return parsed.ok ? [] : parsed.problems;
}

import {
  envSchema,
  httpUrl,
  type Loaded,
  logLevel,
  matching,
  optional,
  parseEnv,
  type SameNames,
  text,
  url,
  wholeNumber,
  withDefault,
} from '../config/env.js';
import type { LogLevelName } from '../observability/log-levels.js';
import type { SERVER_ENV_NAMES } from './env-names.js';
import { PGLITE_CACHE_MB } from './store/pglite-cache.js';

const serverEnv = envSchema({
  PORT: withDefault(wholeNumber(0, 65535), 3000),
  HOST: withDefault(text(), '0.0.0.0'),
  DATABASE_URL: optional(
    url(['postgres', 'postgresql'], 'postgres://vantage:secret@db.internal:5432/vantage', {
      hostOptional: true,
    }),
  ),
  VANTAGE_DATA_DIR: withDefault(text(), '.vantage/server'),
  VANTAGE_PGLITE_CACHE_MB: withDefault(wholeNumber(16, 16_384), PGLITE_CACHE_MB),
  LOG_LEVEL: withDefault(logLevel(), 'INFO'),
  PUBLIC_URL: optional(httpUrl('https://vantage.example.com')),
  VANTAGE_BOOTSTRAP_KEY: optional(text(20)),
  METRICS_TOKEN: optional(text()),
  TRUST_PROXY: optional(
    matching(
      /^(true|false|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/,
      'must be true, false, or a comma-separated list of proxy addresses or CIDR ranges',
    ),
  ),
  SMTP_URL: optional(url(['smtp', 'smtps'], 'smtps://user:pass@mail.internal:465')),
  ALERT_EMAIL_FROM: withDefault(text(3), 'Vantage <alerts@localhost>'),
  SLACK_API_URL: withDefault(httpUrl('https://slack.com/api'), 'https://slack.com/api'),
  PAGERDUTY_EVENTS_URL: withDefault(
    httpUrl('https://events.pagerduty.com/v2/enqueue'),
    'https://events.pagerduty.com/v2/enqueue',
  ),
  OPSGENIE_API_URL: optional(httpUrl('https://api.opsgenie.com')),
  TWILIO_API_URL: withDefault(httpUrl('https://api.twilio.com'), 'https://api.twilio.com'),
  TWILIO_ACCOUNT_SID: optional(text()),
  TWILIO_AUTH_TOKEN: optional(text()),
  TWILIO_FROM_NUMBER: optional(text()),
  ALERT_RETRY_BASE_MS: withDefault(wholeNumber(100, 600_000), 1000),
  VANTAGE_RESULT_RETENTION_DAYS: withDefault(wholeNumber(1, 3650), 30),
  API_RATE_LIMIT: withDefault(wholeNumber(1, 1_000_000), 600),
});

true satisfies SameNames<typeof serverEnv, typeof SERVER_ENV_NAMES>;

/**
 * Where alert channels deliver besides the addresses users give them (docs/alerting.md, Channels): every outside
 * service is a setting, so a test or an air-gapped install points it at its own.
 */
export interface AlertingConfig {
  /** smtp(s)://user:pass@host:port of the mail server EMAIL channels send through. */
  smtpUrl?: string;
  emailFrom: string;
  /** Base of Slack's Web API (SLACK_APP channels post with chat.postMessage). */
  slackApiUrl: string;
  /** PagerDuty's Events API v2 enqueue URL. */
  pagerDutyEventsUrl: string;
  /** Opsgenie's API base; absent means by the channel's region (api.opsgenie.com or api.eu.opsgenie.com). */
  opsgenieApiUrl?: string;
  /** Twilio's REST API for SMS and CALL channels. */
  twilio: { apiUrl: string; accountSid?: string; authToken?: string; fromNumber?: string };
  /** The first retry of a notification waits this long; each next one twice as long, up to ten minutes. */
  retryBaseMs: number;
}

export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  /** PGlite's buffer cache in MB (without databaseUrl). */
  pgliteCacheMb: number;
  logLevel: LogLevelName;
  publicUrl: string;
  bootstrapKey?: string;
  /** When set, GET /metrics (Prometheus) asks for `Authorization: Bearer <metricsToken>`; otherwise it is open. */
  metricsToken?: string;
  /** Proxies whose X-Forwarded-For names a request's source (for the per-source limits): all, none, or these. */
  trustProxy: boolean | string[];
  /** Requests per key (or per token of a keyless route) per 60 s on the public API; 600, the service's, when absent. */
  apiRateLimit?: number;
  alerting: AlertingConfig;
  /** Days raw results, their runs, sessions and artifacts are kept; rollups are kept 13 months. */
  resultRetentionDays: number;
}

function trustProxyOf(value: string | undefined): boolean | string[] {
  if (value === undefined || value === 'false') return false;
  return value === 'true' ? true : value.split(',');
}

/** Reads the server's settings from the environment; every problem is one line `NAME: what is wrong`. */
export function loadServerConfig(env: NodeJS.ProcessEnv): Loaded<ServerConfig> {
  const parsed = parseEnv(serverEnv, env);
  if (!parsed.ok) return parsed;
  const e = parsed.values;
  return {
    ok: true,
    config: {
      port: e.PORT,
      host: e.HOST,
      databaseUrl: e.DATABASE_URL,
      dataDir: e.VANTAGE_DATA_DIR,
      pgliteCacheMb: e.VANTAGE_PGLITE_CACHE_MB,
      logLevel: e.LOG_LEVEL,
      publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
      bootstrapKey: e.VANTAGE_BOOTSTRAP_KEY,
      metricsToken: e.METRICS_TOKEN,
      trustProxy: trustProxyOf(e.TRUST_PROXY),
      apiRateLimit: e.API_RATE_LIMIT,
      alerting: {
        smtpUrl: e.SMTP_URL,
        emailFrom: e.ALERT_EMAIL_FROM,
        slackApiUrl: e.SLACK_API_URL.replace(/\/$/, ''),
        pagerDutyEventsUrl: e.PAGERDUTY_EVENTS_URL,
        opsgenieApiUrl: e.OPSGENIE_API_URL?.replace(/\/$/, ''),
        twilio: {
          apiUrl: e.TWILIO_API_URL.replace(/\/$/, ''),
          accountSid: e.TWILIO_ACCOUNT_SID,
          authToken: e.TWILIO_AUTH_TOKEN,
          fromNumber: e.TWILIO_FROM_NUMBER,
        },
        retryBaseMs: e.ALERT_RETRY_BASE_MS,
      },
      resultRetentionDays: e.VANTAGE_RESULT_RETENTION_DAYS,
    },
  };
}

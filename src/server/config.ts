import { z } from 'zod';
import { problemsOf } from '../checks/index.js';

const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

const serverEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
    .optional(),
  VANTAGE_DATA_DIR: z.string().default('.vantage/server'),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(LOG_LEVELS))
    .default('INFO'),
  PUBLIC_URL: z.url({ message: 'must be an http(s) URL' }).optional(),
  VANTAGE_BOOTSTRAP_KEY: z.string().min(20, { message: 'must be at least 20 characters' }).optional(),
  METRICS_TOKEN: z.string().min(1).optional(),
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/, {
      message: 'must be true, false, or a comma-separated list of proxy addresses or CIDR ranges',
    })
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, { message: 'must be an smtp:// or smtps:// URL' })
    .optional(),
  ALERT_EMAIL_FROM: z.string().min(3).default('Vantage <alerts@localhost>'),
  SLACK_API_URL: httpUrl.default('https://slack.com/api'),
  PAGERDUTY_EVENTS_URL: httpUrl.default('https://events.pagerduty.com/v2/enqueue'),
  OPSGENIE_API_URL: httpUrl.optional(),
  TWILIO_API_URL: httpUrl.default('https://api.twilio.com'),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  TWILIO_FROM_NUMBER: z.string().min(1).optional(),
  ALERT_RETRY_BASE_MS: z.coerce.number().int().min(100).max(600_000).default(1000),
});

/** Every environment setting of the control plane, for `vantage server --help`. */
export const SERVER_ENV_NAMES = Object.keys(serverEnv.shape);

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
  logLevel: (typeof LOG_LEVELS)[number];
  publicUrl: string;
  bootstrapKey?: string;
  /** When set, GET /metrics (Prometheus) asks for `Authorization: Bearer <metricsToken>`; otherwise it is open. */
  metricsToken?: string;
  /** Proxies whose X-Forwarded-For names a request's source (for the per-source limits): all, none, or these. */
  trustProxy: boolean | string[];
  alerting: AlertingConfig;
}

function trustProxyOf(value: string | undefined): boolean | string[] {
  if (value === undefined || value === 'false') return false;
  return value === 'true' ? true : value.split(',');
}

/** Reads the server's settings from the environment; throws one line per problem. */
export function serverConfigFromEnv(env: NodeJS.ProcessEnv): ServerConfig {
  const parsed = serverEnv.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      problemsOf(parsed.error)
        .map((p) => `${p.path}: ${p.message}`)
        .join('\n'),
    );
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.VANTAGE_DATA_DIR,
    logLevel: e.LOG_LEVEL,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    bootstrapKey: e.VANTAGE_BOOTSTRAP_KEY,
    metricsToken: e.METRICS_TOKEN,
    trustProxy: trustProxyOf(e.TRUST_PROXY),
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
  };
}

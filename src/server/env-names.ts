/**
 * Every environment setting of the control plane by name, without their rules (config.ts holds those, and fails to
 * compile if the two differ): `vantage server --help` lists them without loading the schema library.
 */
export const SERVER_ENV_NAMES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'VANTAGE_DATA_DIR',
  'VANTAGE_PGLITE_CACHE_MB',
  'LOG_LEVEL',
  'PUBLIC_URL',
  'VANTAGE_BOOTSTRAP_KEY',
  'METRICS_TOKEN',
  'TRUST_PROXY',
  'SMTP_URL',
  'ALERT_EMAIL_FROM',
  'SLACK_API_URL',
  'PAGERDUTY_EVENTS_URL',
  'OPSGENIE_API_URL',
  'TWILIO_API_URL',
  'TWILIO_ACCOUNT_SID',
  'TWILIO_AUTH_TOKEN',
  'TWILIO_FROM_NUMBER',
  'ALERT_RETRY_BASE_MS',
  'VANTAGE_RESULT_RETENTION_DAYS',
  'API_RATE_LIMIT',
] as const;

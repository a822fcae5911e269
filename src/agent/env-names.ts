import { SANDBOX_ENV_NAMES } from '../runtimes/env-names.js';

/**
 * Every environment setting of the agent by name, without their rules (config.ts holds those, and fails to compile
 * if the two differ): `vantage agent --help` lists them without loading the schema library.
 */
export const AGENT_ENV_NAMES = [
  'API_KEY',
  'API_URL',
  'JOB_CONCURRENCY',
  'AGENT_THREADS',
  'BROWSER_CONCURRENCY',
  'AGENT_HEALTH_PORT',
  'LOG_LEVEL',
  'EXTERNAL_OBSERVABILITY',
  'AGENT_DATA_DIR',
  'SHUTDOWN_GRACE_SECONDS',
  'AGENT_SPOOL_MAX_MB',
  'AGENT_RUN_LIMIT_SCALE',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'NODE_EXTRA_CA_CERTS',
  ...SANDBOX_ENV_NAMES,
] as const;

/** Enumerations of the public API (spec) and of docs/checks.md. */

export const CHECK_TYPES = [
  'URL',
  'API',
  'TCP',
  'DNS',
  'ICMP',
  'BROWSER',
  'MULTI_STEP',
  'PLAYWRIGHT',
  'HEARTBEAT',
  'AGENTIC',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const LOCATIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-central-1',
  'eu-west-2',
  'eu-west-3',
  'eu-north-1',
  'eu-south-1',
  'me-south-1',
  'ap-southeast-1',
  'ap-northeast-1',
  'ap-east-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-south-1',
  'af-south-1',
] as const;
export type Location = (typeof LOCATIONS)[number];

export const RUNTIME_IDS = [
  '2026.04',
  '2025.04',
  '2024.09',
  '2024.02',
  '2023.09',
  '2023.02',
  '2022.10',
] as const;
export type RuntimeId = (typeof RUNTIME_IDS)[number];

/** Minutes between runs; 0 means sub-minute (see frequencyOffset). */
export const FREQUENCIES = [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
export const SUB_MINUTE_OFFSETS = [10, 20, 30] as const;
/** Kinds that may run more often than once a minute (frequency 0). */
export const SUB_MINUTE_KINDS: readonly CheckType[] = ['API', 'TCP'];

export const IP_FAMILIES = ['IPv4', 'IPv6'] as const;
export type IpFamily = (typeof IP_FAMILIES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const BODY_TYPES = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const;
export type BodyType = (typeof BODY_TYPES)[number];

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'HTTPS'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

export const DNS_PROTOCOLS = ['UDP', 'TCP'] as const;
export type DnsProtocol = (typeof DNS_PROTOCOLS)[number];

export const RETRY_TYPES = ['LINEAR', 'EXPONENTIAL', 'FIXED', 'SINGLE_RETRY'] as const;
export type RetryType = (typeof RETRY_TYPES)[number];

export const ESCALATION_TYPES = ['RUN_BASED', 'TIME_BASED'] as const;

export const HEARTBEAT_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type HeartbeatUnit = (typeof HEARTBEAT_UNITS)[number];

export const PLAYWRIGHT_ENGINES = ['node22', 'node24', 'node26', 'bun1.3'] as const;

/** Final statuses of a check session. */
export const SESSION_STATUSES = ['FAILED', 'PASSED', 'DEGRADED', 'TIMED_OUT', 'CANCELLED'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const RUN_SOURCES = [
  'CLI_DEPLOY',
  'DEPLOYMENT',
  'DEPLOYMENT_CACHE_WARMER',
  'EDITOR',
  'GROUP_RUN_ALL',
  'LEGACY_TRIGGER',
  'SCHEDULER',
  'SCHEDULE_NOW',
  'SLACK_RERUN',
  'TEST_NO_RECORD',
  'TEST_RECORD',
  'TRIGGER_NO_RECORD',
  'TRIGGER_RECORD',
  'TRIGGER_API',
] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

/** Execution limit of one run of each kind, in milliseconds (docs/checks.md, Outcome of a run). */
export const EXECUTION_LIMIT_MS: Record<CheckType, number> = {
  URL: 30_000,
  API: 30_000,
  TCP: 30_000,
  DNS: 30_000,
  ICMP: 30_000,
  BROWSER: 240_000,
  MULTI_STEP: 240_000,
  PLAYWRIGHT: 60 * 60_000,
  HEARTBEAT: 30_000,
  AGENTIC: 240_000,
};

/** The records of a run (docs/checks.md, Result records). */
import type { Assertion } from './assertion.js';
import type { CheckType, RunSource, SessionStatus } from './enums.js';

/** An assertion as it was evaluated: its fields, the value compared, and why it failed (null when it held). */
export interface AssertionResult extends Assertion {
  actual: unknown;
  error: string | null;
}

export interface HttpTimings {
  socket: number;
  lookup: number;
  connect: number;
  response: number;
  end: number;
}

export interface HttpTimingPhases {
  wait: number;
  dns: number;
  tcp: number;
  firstByte: number;
  download: number;
  total: number;
}

export interface TlsDetails {
  protocol: string | null;
  cipher: string | null;
  subject: string | null;
  issuer: string | null;
  validFrom: string | null;
  validTo: string | null;
  daysRemaining: number | null;
}

export interface ApiCheckResult {
  assertions: AssertionResult[];
  request: {
    method: string;
    url: string;
    data: string;
    headers: Record<string, string>;
    params: Record<string, string>;
  };
  response: {
    status: number;
    statusText: string;
    body: string;
    bodyEncoding: 'utf8' | 'base64' | null;
    headers: Record<string, string>;
    timings: HttpTimings;
    timingPhases: HttpTimingPhases;
    tls: TlsDetails | null;
  } | null;
  requestError: string | null;
  jobLog: JobLogLine[];
}

export interface JobLogLine {
  time: string;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  msg: string;
}

export interface TcpTimingPhases {
  dns: number;
  connect: number;
  data: number;
  total: number;
}

export interface TcpCheckResult {
  assertions: AssertionResult[];
  response: { data: string; timingPhases: TcpTimingPhases } | null;
  requestError: string | null;
}

export interface DnsAnswerJson {
  Status: number;
  TC: boolean;
  RD: boolean;
  RA: boolean;
  AD: boolean;
  CD: boolean;
  Question: { name: string; type: string }[];
  Answer: { name: string; type: string; TTL: number; data: string }[];
}

export interface DnsCheckResult {
  assertions: AssertionResult[];
  response: DnsAnswerJson | null;
  timingPhases: { total: number } & Record<string, number>;
  requestError: string | null;
}

export interface IcmpJsonResponse {
  hostname: string;
  resolvedIp: string | null;
  ipFamily: string;
  pingCount: number;
  packetsSent: number;
  packetsReceived: number;
  packetSize: number;
  packetLoss: number;
  latency: { avg: number | null; min: number | null; max: number | null; stdDev: number | null };
  pingResults: { sequence: number; success: boolean; rtt: number | null; ttl: number | null }[];
}

export interface IcmpCheckResult {
  assertions: AssertionResult[];
  response: IcmpJsonResponse | null;
  requestError: string | null;
}

export interface Asset {
  name: string;
  contentType: string;
  size: number;
  url: string | null;
}

export interface ScriptCheckResult {
  errors: string[];
  logs: JobLogLine[];
  assets: Asset[];
  tests: unknown[];
}

/** What the control plane recorded for a heartbeat check: the event behind the result (docs/heartbeats.md). */
export interface HeartbeatCheckResult {
  eventId: string;
  state: 'PASSING' | 'FAILING';
  /** How the ping was made (`HTTP POST from 10.0.0.7`), or that none came in time. */
  source: string;
  /** Why it failed: a failure reported by the job, or a ping overdue; '' when it passed. */
  requestError: string;
}

/** The detail object of one kind, under its key. */
export type ResultDetail =
  | { apiCheckResult: ApiCheckResult }
  | { tcpCheckResult: TcpCheckResult }
  | { dnsCheckResult: DnsCheckResult }
  | { icmpCheckResult: IcmpCheckResult }
  | { browserCheckResult: ScriptCheckResult }
  | { multiStepCheckResult: ScriptCheckResult }
  | { playwrightCheckResult: ScriptCheckResult }
  | { heartbeatCheckResult: HeartbeatCheckResult }
  | { errorResult: { requestError: string } };

export interface CheckResult {
  checkResultId: string;
  checkId: string;
  checkType: CheckType;
  name: string;
  runLocation: string;
  resultType: 'FINAL' | 'ATTEMPT';
  hasErrors: boolean;
  hasFailures: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  aborted: boolean;
  isCancelled: boolean;
  responseTime: number;
  startedAt: string;
  stoppedAt: string;
  attempts: number;
  errorGroupIds: string[];
  [detail: string]: unknown;
}

export interface CheckSession {
  checkSessionId: string;
  checkSessionLink: string | null;
  checkId: string;
  checkType: CheckType;
  name: string;
  status: SessionStatus | 'RUNNING';
  startedAt: string;
  stoppedAt: string | null;
  timeElapsed: number;
  runLocations: string[];
  runSource: RunSource;
  results: CheckResult[];
}

/** The detail object of a result, whichever kind it is. */
export function detailOf(result: CheckResult): Record<string, unknown> | undefined {
  for (const [key, value] of Object.entries(result)) {
    if (key.endsWith('Result') && key !== 'checkResultId' && value && typeof value === 'object') {
      return value as Record<string, unknown>;
    }
  }
  return undefined;
}

/**
 * One line saying why a result failed or degraded: its request error, its first failing assertion, its first
 * error, or the last error line of its log.
 */
export function failureOf(result: CheckResult): string | null {
  const detail = detailOf(result);
  if (!detail) return null;
  if (typeof detail.requestError === 'string' && detail.requestError !== '') return detail.requestError;
  const failing = (detail.assertions as AssertionResult[] | undefined)?.find((a) => a.error);
  if (failing?.error) return failing.error;
  const errors = detail.errors as string[] | undefined;
  if (errors?.[0]) return errors[0];
  const log = (detail.jobLog ?? detail.logs) as JobLogLine[] | undefined;
  const lastError = log?.findLast((line) => line.level === 'ERROR');
  if (lastError) return lastError.msg;
  if (result.isDegraded)
    return `response time ${Math.round(result.responseTime)} ms is over the degraded threshold`;
  return null;
}

/**
 * A copy of a result record with one more line in its `notes`: what was changed to keep the result (a text cut to
 * fit, characters the store cannot hold replaced).
 */
export function withResultNote<R extends Record<string, unknown>>(record: R, note: string): R {
  const notes = Array.isArray(record.notes) ? record.notes : [];
  return { ...record, notes: [...notes, note] };
}

import { RUN_SOURCES, type RunSource } from '../checks/enums.js';

// The control plane's messages to an agent, checked with the plain rules below rather than zod: the agent reads
// the welcome before it is ready, and zod is not loaded by then (docs/performance.md, "Agent start-up and memory").

export interface WelcomeMessage {
  type: 'welcome';
  protocolVersion: number;
  location: string;
  heartbeatIntervalMs: number;
  leaseTtlMs: number;
}

export interface RunVariable {
  key: string;
  value: string;
  secret?: boolean;
}

/** One run of one check at this location, leased to the agent that receives it. */
export interface RunMessage {
  type: 'run';
  runId: string;
  checkSessionId: string;
  /** 1 for the first attempt, then one more per retry. */
  attempt: number;
  runSource: RunSource;
  runLocation: string;
  /** The check as stored; the agent validates it with the check model before running it. */
  check: Record<string, unknown>;
  /** Variables the check inherits, highest priority first (group, then account). */
  inheritedVariables: RunVariable[][];
  /** The account's client certificates (mTLS), each for a host. */
  clientCertificates: {
    host: string;
    cert: string;
    key: string;
    ca?: string | null;
    passphrase?: string | null;
  }[];
  leaseExpiresAt: string;
  /**
   * From version 3 on: the run was sent before its start, which is this many ms after the message arrives. The
   * agent holds it on its slot until then. Absent or 0: start at once.
   */
  startInMs?: number;
}

export interface CancelMessage {
  type: 'cancel';
  runId: string;
}

export const ERROR_CODES = ['UNSUPPORTED_PROTOCOL', 'REVOKED', 'BAD_MESSAGE', 'INTERNAL'] as const;

/** A refusal; `fatal` errors (revoked key, unsupported protocol) close the connection and call for a slow retry. */
export interface ErrorMessage {
  type: 'error';
  // A key that is not valid never gets this far: its upgrade is refused with HTTP 401.
  code: (typeof ERROR_CODES)[number];
  message: string;
  fatal: boolean;
}

export type ControlMessage = WelcomeMessage | RunMessage | CancelMessage | ErrorMessage;

/** A rule of one value: adds `path: what is wrong` to `problems` when the value breaks it. */
type Rule = (value: unknown, path: string, problems: string[]) => void;

const rule =
  (keeps: (value: unknown) => boolean, what: string): Rule =>
  (value, path, problems) => {
    if (!keeps(value)) problems.push(`${path}: ${what}`);
  };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = rule((v) => typeof v === 'string', 'must be text');
const yesNo = rule((v) => typeof v === 'boolean', 'must be true or false');
const wholeNumber = (min = Number.MIN_SAFE_INTEGER) =>
  rule(
    (v) => Number.isSafeInteger(v) && (v as number) >= min,
    min === Number.MIN_SAFE_INTEGER ? 'must be a whole number' : `must be a whole number of at least ${min}`,
  );
const oneOf = (values: readonly unknown[]) =>
  rule((v) => values.includes(v), `must be one of ${values.join(', ')}`);
const anyObject = rule(isObject, 'must be an object');

/** Absent, or kept by `inner`. */
const optional =
  (inner: Rule): Rule =>
  (value, path, problems) => {
    if (value !== undefined) inner(value, path, problems);
  };

const orNull =
  (inner: Rule): Rule =>
  (value, path, problems) => {
    if (value !== null) inner(value, path, problems);
  };

const listOf =
  (item: Rule): Rule =>
  (value, path, problems) => {
    if (!Array.isArray(value)) problems.push(`${path}: must be a list`);
    else for (const [i, v] of value.entries()) item(v, `${path}[${i}]`, problems);
  };

/** An object of exactly these fields. */
const fields =
  (shape: Record<string, Rule>): Rule =>
  (value, path, problems) => {
    if (!isObject(value)) {
      problems.push(`${path || 'the message'}: must be an object`);
      return;
    }
    const at = (key: string) => (path ? `${path}.${key}` : key);
    for (const key of Object.keys(value))
      if (!(key in shape)) problems.push(`${at(key)}: is not a field here`);
    for (const [key, keeps] of Object.entries(shape)) keeps(value[key], at(key), problems);
  };

const RULES: Record<ControlMessage['type'], Rule> = {
  welcome: fields({
    type: text,
    protocolVersion: wholeNumber(),
    location: text,
    heartbeatIntervalMs: wholeNumber(1),
    leaseTtlMs: wholeNumber(1),
  }),
  run: fields({
    type: text,
    runId: text,
    checkSessionId: text,
    attempt: wholeNumber(1),
    runSource: oneOf(RUN_SOURCES),
    runLocation: text,
    check: anyObject,
    inheritedVariables: listOf(listOf(fields({ key: text, value: text, secret: optional(yesNo) }))),
    clientCertificates: listOf(
      fields({
        host: text,
        cert: text,
        key: text,
        ca: optional(orNull(text)),
        passphrase: optional(orNull(text)),
      }),
    ),
    leaseExpiresAt: text,
    startInMs: optional(wholeNumber(0)),
  }),
  cancel: fields({ type: text, runId: text }),
  error: fields({ type: text, code: oneOf(ERROR_CODES), message: text, fatal: yesNo }),
};

/** A message of the control plane, or its problems as `field: rule` (`attempt: must be a whole number of at least 1`). */
export function parseControlMessage(
  value: unknown,
): { ok: true; message: ControlMessage } | { ok: false; problems: string[] } {
  const type = isObject(value) ? value.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(RULES, type)) {
    return { ok: false, problems: [`type: must be one of ${Object.keys(RULES).join(', ')}`] };
  }
  const problems: string[] = [];
  RULES[type as ControlMessage['type']](value, '', problems);
  return problems.length === 0 ? { ok: true, message: value as ControlMessage } : { ok: false, problems };
}

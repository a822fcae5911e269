import type { CheckType } from '../checks/index.js';
import { executeBrowser, executeMultiStep } from './browser/index.js';
import { executeDns } from './dns/index.js';
import { executeApi, executeUrl } from './http/index.js';
import { executeIcmp } from './icmp/index.js';
import { executePlaywright } from './playwright/index.js';
import { executeTcp } from './tcp/index.js';
import type { Executor } from './types.js';
import { unsupported } from './unsupported.js';

export type ExecutorRegistry = Record<CheckType, Executor>;

/** Kinds this build never runs, and why: a run of one fails with the reason; agents are not offered them. */
export const UNAVAILABLE_KINDS = {
  HEARTBEAT: 'heartbeat monitors are not run by an agent; the control plane records their pings',
  AGENTIC: 'agentic checks run only on the service’s own locations',
} as const satisfies Partial<Record<CheckType, string>>;

/** The executor of every check kind in this build. */
export const defaultExecutors: ExecutorRegistry = {
  URL: executeUrl as Executor,
  API: executeApi as Executor,
  TCP: executeTcp as Executor,
  DNS: executeDns as Executor,
  ICMP: executeIcmp as Executor,
  BROWSER: executeBrowser as Executor,
  MULTI_STEP: executeMultiStep as Executor,
  PLAYWRIGHT: executePlaywright as Executor,
  ...(Object.fromEntries(
    Object.entries(UNAVAILABLE_KINDS).map(([kind, reason]) => [kind, unsupported(kind as CheckType, reason)]),
  ) as Record<keyof typeof UNAVAILABLE_KINDS, Executor>),
};

import type { CheckType } from '../checks/index.js';
import type { Executor } from './types.js';
import { unsupported } from './unsupported.js';

export type ExecutorRegistry = Record<CheckType, Executor>;

/** Kinds this build never runs, and why: a run of one fails with the reason; agents are not offered them. */
export const UNAVAILABLE_KINDS = {
  HEARTBEAT: 'heartbeat monitors are not run by an agent; the control plane records their pings',
  AGENTIC: 'agentic checks run only on the service’s own locations',
} as const satisfies Partial<Record<CheckType, string>>;

/**
 * An executor whose module is imported at its first run: a process loads only the executors of the kinds it runs
 * (the browser and Playwright runtimes, the raw sockets of ICMP take long to load and most runs never need them).
 */
function loadedOnUse(load: () => Promise<Executor>): Executor {
  let loading: Promise<Executor> | undefined;
  let loaded: Executor | undefined;
  return (check, context) => {
    if (loaded) return loaded(check, context);
    loading ??= load().then((executor) => {
      loaded = executor;
      return executor;
    });
    return loading.then((executor) => executor(check, context));
  };
}

/** The executor of every check kind in this build. */
export const defaultExecutors: ExecutorRegistry = {
  URL: loadedOnUse(async () => (await import('./http/index.js')).executeUrl as Executor),
  API: loadedOnUse(async () => (await import('./http/index.js')).executeApi as Executor),
  TCP: loadedOnUse(async () => (await import('./tcp/index.js')).executeTcp as Executor),
  DNS: loadedOnUse(async () => (await import('./dns/index.js')).executeDns as Executor),
  ICMP: loadedOnUse(async () => (await import('./icmp/index.js')).executeIcmp as Executor),
  BROWSER: loadedOnUse(async () => (await import('./browser/index.js')).executeBrowser as Executor),
  MULTI_STEP: loadedOnUse(async () => (await import('./browser/index.js')).executeMultiStep as Executor),
  PLAYWRIGHT: loadedOnUse(async () => (await import('./playwright/index.js')).executePlaywright as Executor),
  ...(Object.fromEntries(
    Object.entries(UNAVAILABLE_KINDS).map(([kind, reason]) => [kind, unsupported(kind as CheckType, reason)]),
  ) as Record<keyof typeof UNAVAILABLE_KINDS, Executor>),
};

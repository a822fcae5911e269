import type { CheckType } from '../checks/index.js';
import { executeDns } from './dns/index.js';
import { executeApi, executeUrl } from './http/index.js';
import { executeIcmp } from './icmp/index.js';
import { executeTcp } from './tcp/index.js';
import type { Executor } from './types.js';
import { unsupported } from './unsupported.js';

export type ExecutorRegistry = Record<CheckType, Executor>;

/** The executor of every check kind in this build. */
export const defaultExecutors: ExecutorRegistry = {
  URL: executeUrl as Executor,
  API: executeApi as Executor,
  TCP: executeTcp as Executor,
  DNS: executeDns as Executor,
  ICMP: executeIcmp as Executor,
  BROWSER: unsupported('BROWSER', 'the browser executor is not built yet'),
  MULTI_STEP: unsupported('MULTI_STEP', 'the multi-step executor is not built yet'),
  PLAYWRIGHT: unsupported('PLAYWRIGHT', 'the Playwright check-suite executor is not built yet'),
  HEARTBEAT: unsupported(
    'HEARTBEAT',
    'heartbeat monitors are not run by an agent; the control plane records their pings',
  ),
  AGENTIC: unsupported('AGENTIC', 'agentic checks run only on the service’s own locations'),
};

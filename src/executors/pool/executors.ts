import { CHECK_TYPES } from '../../checks/index.js';
import { executeDns } from '../dns/index.js';
import { executeApi, executeUrl } from '../http/index.js';
import type { ExecutorRegistry } from '../registry.js';
import { executeTcp } from '../tcp/index.js';
import type { Executor } from '../types.js';
import { unsupported } from '../unsupported.js';
import { POOLED_KINDS } from './messages.js';

const POOLED: Partial<ExecutorRegistry> = {
  URL: executeUrl as Executor,
  API: executeApi as Executor,
  TCP: executeTcp as Executor,
  DNS: executeDns as Executor,
};

/**
 * The executors of a pool thread: the POOLED_KINDS only, so a thread loads none of the others (ICMP's native
 * raw socket cannot even load in a worker thread).
 */
export const pooledExecutors = Object.fromEntries(
  CHECK_TYPES.map((kind) => [
    kind,
    (POOLED_KINDS.has(kind) && POOLED[kind]) ||
      unsupported(kind, 'it runs on the main thread, not in a pool thread'),
  ]),
) as ExecutorRegistry;

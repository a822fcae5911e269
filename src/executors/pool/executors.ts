import { CHECK_TYPES } from '../../checks/enums.js';
import { defaultExecutors, type ExecutorRegistry } from '../registry.js';
import { unsupported } from '../unsupported.js';
import { POOLED_KINDS } from './messages.js';

/**
 * The executors of a pool thread: the POOLED_KINDS only, each imported at its first run, so a thread loads the
 * session runner and the executors of the kinds it runs, nothing else (ICMP's native raw socket cannot even load
 * in a worker thread).
 */
export const pooledExecutors = Object.fromEntries(
  CHECK_TYPES.map((kind) => [
    kind,
    POOLED_KINDS.has(kind)
      ? defaultExecutors[kind]
      : unsupported(kind, 'it runs on the main thread, not in a pool thread'),
  ]),
) as ExecutorRegistry;

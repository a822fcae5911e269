export { POOLED_KINDS, type PooledSessionOptions } from './messages.js';
export { CheckPool, type CheckPoolOptions, serializedSession } from './pool.js';
export { poolThreads, SESSIONS_PER_THREAD } from './size.js';

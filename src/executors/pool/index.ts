export { POOLED_KINDS, type PooledAttemptOptions, type PooledSessionOptions } from './messages.js';
export { CheckPool, type CheckPoolOptions, serializedSession } from './pool.js';
export { poolShape } from './size.js';

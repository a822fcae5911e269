export * from './keys.js';
export * from './messages.js';
export * from './version.js';
export * from './slots.js';

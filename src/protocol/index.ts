export * from './json-pieces.js';
export * from './keys.js';
export * from './messages.js';
export * from './slots.js';
export * from './version.js';

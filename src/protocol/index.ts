export * from './control-messages.js';
export * from './json-pieces.js';
export * from './keys.js';
export * from './messages.js';
export * from './slots.js';
export * from './uploads.js';
export * from './version.js';

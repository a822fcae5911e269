/**
 * What `zod/v4/locales` resolves to in the `vantage` command (see zod-locales.ts): English alone, the locale zod
 * sets itself.
 */
export { default as en } from 'zod/v4/locales/en.js';

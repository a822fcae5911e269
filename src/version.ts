import { readFileSync } from 'node:fs';

/** The version of this build, from package.json. */
export const version: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

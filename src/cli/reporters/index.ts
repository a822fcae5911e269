import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { listReporter } from './list.js';
import type { Reporter, ReporterOptions } from './reporter.js';

export const REPORTERS = {
  list: listReporter,
  json: jsonReporter,
  junit: junitReporter,
} as const satisfies Record<string, (options: ReporterOptions) => Reporter>;
export type ReporterName = keyof typeof REPORTERS;
export type { Reporter, ReporterOptions };

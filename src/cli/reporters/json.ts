import { writeJsonLine } from './json-lines.js';
import type { Reporter, ReporterOptions } from './reporter.js';

/** One check-session record per line, as it finishes. */
export function jsonReporter({ write }: ReporterOptions): Reporter {
  return {
    onSession: (session) => writeJsonLine(session, write),
    onEnd: async () => {},
  };
}

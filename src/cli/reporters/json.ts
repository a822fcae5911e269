import type { Reporter, ReporterOptions } from './reporter.js';

/** One check-session record per line, as it finishes. */
export function jsonReporter({ write }: ReporterOptions): Reporter {
  return {
    onSession: (session) => write(`${JSON.stringify(session)}\n`),
    onEnd: async () => {},
  };
}

import { serializedSession } from '../../executors/pool/index.js';
import { jsonPieces } from '../../protocol/json-pieces.js';
import type { Reporter, ReporterOptions } from './reporter.js';

/** One check-session record per line, as it finishes. */
export function jsonReporter({ write }: ReporterOptions): Reporter {
  return {
    // In pieces: a large body is written as it is, not copied into the line first.
    onSession: (session) => {
      const json = serializedSession(session);
      if (json !== undefined) {
        write(json);
        write('\n');
        return;
      }
      for (const piece of jsonPieces(session)) write(piece);
      write('\n');
    },
    onEnd: async () => {},
  };
}

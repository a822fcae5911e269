import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevelName } from './log-levels.js';
import { redactFields } from './redact-fields.js';
import type { SecretValues } from './secret-values.js';

export { LOG_LEVELS, type LogLevelName } from './log-levels.js';
export type { Logger };

const PINO_LEVELS: Record<LogLevelName, pino.Level> = {
  DEBUG: 'debug',
  LOG: 'info',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** How long a line may wait for others to share its write. */
const LINE_GATHER_MS = 100;

/**
 * Stdout for a process that logs per run (the agent): lines gather for up to LINE_GATHER_MS (or 4 KiB) and go out
 * in one write, rather than a write each, which at a low load cost a hand-over to libuv's thread pool and a wake-up
 * of the process and of the reader for every line. What is still held is written when the process exits (pino
 * flushes it on exit, also after a crash), so only a SIGKILL can lose the last lines.
 */
export function batchedStdout(): DestinationStream & { flush(): void } {
  const out = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  let gathering: NodeJS.Timeout | null = null;
  const flush = () => {
    if (gathering) clearTimeout(gathering);
    gathering = null;
    out.flush();
  };
  return {
    write(line: string) {
      out.write(line);
      // Unref'd: a process with nothing else to do exits at once, and pino writes what is held as it does.
      gathering ??= setTimeout(flush, LINE_GATHER_MS).unref();
    },
    flush,
  };
}

/** An error-level log event, as handed to the error reporter. */
export interface ErrorEvent {
  message: string;
  error: Error | null;
}

export interface LoggerOptions {
  level: LogLevelName;
  /** Where JSON lines go; stdout (written synchronously, so nothing is lost at exit) by default. */
  destination?: DestinationStream;
  /** Masks known secret values and credential-shaped tokens in every line. */
  secrets: SecretValues;
  /** Called for every error-level event (error and fatal). */
  onError?: (event: ErrorEvent) => void;
  base?: Record<string, unknown>;
}

/** JSON-lines logger: LOG_LEVEL mapped onto pino's levels, credentials redacted by field and by value. */
export function createLogger(options: LoggerOptions): Logger {
  const { onError, secrets } = options;
  return pino(
    {
      level: PINO_LEVELS[options.level],
      base: options.base ?? {},
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: redactFields, bindings: redactFields },
      hooks: {
        streamWrite: (line) => secrets.mask(line),
        logMethod(args, method, level) {
          if (onError && level >= 50) {
            try {
              onError(errorEventOf(args));
            } catch {
              // Reporting must never break logging.
            }
          }
          return method.apply(this, args);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** The message and error of a pino call: `(err)`, `(err, msg)`, `({err}, msg)` or `(msg)`. */
function errorEventOf(args: readonly unknown[]): ErrorEvent {
  const [first, second] = args;
  let error: Error | null = null;
  if (first instanceof Error) error = first;
  else if (first && typeof first === 'object') {
    const candidate =
      (first as { err?: unknown; error?: unknown }).err ?? (first as { error?: unknown }).error;
    if (candidate instanceof Error) error = candidate;
  }
  const text = typeof first === 'string' ? first : typeof second === 'string' ? second : '';
  const message = error ? (text ? `${text}: ${error.message}` : error.message) : text;
  return { message, error };
}

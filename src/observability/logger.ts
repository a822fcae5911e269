import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevelName } from './log-levels.js';
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

const SENSITIVE_FIELDS = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'apiKey',
  'api_key',
  'API_KEY',
  'key',
  'password',
  'passphrase',
  'secret',
  'token',
];

/** A field name as a path step: `.name`, or `["name"]` when it is not an identifier. */
const step = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`);

/** Field names whose values never reach a log line: at the top level, one level down, and under `headers`. */
export const REDACT_PATHS = SENSITIVE_FIELDS.flatMap((name) => [
  step(name).replace(/^\./, ''),
  `*${step(name)}`,
  `headers${step(name)}`,
]);

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
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
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

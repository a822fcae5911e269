import type { ErrorReport } from '../protocol/index.js';
import type { ErrorEvent } from './logger.js';
import { scrubText } from './scrub.js';
import type { SecretValues } from './secret-values.js';

export interface ErrorReporterOptions {
  /** False when EXTERNAL_OBSERVABILITY=off: nothing is sent. */
  enabled: boolean;
  agentVersion: string;
  secrets: SecretValues;
  /** Values of this process's environment that must not leave it (besides the known secrets). */
  envValues?: readonly string[];
  /** Delivers one report (POST /v1/agent/errors). */
  send: (report: ErrorReport) => Promise<void>;
  /** Reports sent per minute at most; the rest are dropped. */
  perMinute?: number;
  /** Told when a report could not be sent (never at error level, which would report again). */
  onSendFailure?: (error: unknown) => void;
}

export interface ErrorReporter {
  report(event: ErrorEvent): void;
  /** Waits for reports under way. */
  flush(): Promise<void>;
}

const MESSAGE_MAX = 2000;
const STACK_MAX = 16_000;

/** Builds the scrubbed report of an error-level event: its message and the frames of its stack. */
export function buildErrorReport(
  event: ErrorEvent,
  options: Pick<ErrorReporterOptions, 'agentVersion' | 'secrets' | 'envValues'>,
): ErrorReport {
  const scrub = (text: string) => scrubText(text, options.secrets, options.envValues);
  const name = event.error?.name && event.error.name !== 'Error' ? `${event.error.name}: ` : '';
  const message = scrub(`${name}${event.message}`).slice(0, MESSAGE_MAX);
  // Only the `at …` frames: the stack's first lines repeat the unscrubbed message.
  const frames = (event.error?.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
  return {
    message,
    stack: frames === '' ? null : scrub(frames).slice(0, STACK_MAX),
    agentVersion: options.agentVersion,
    platform: `${process.platform}-${process.arch}`,
    nodeVersion: process.version,
    time: new Date().toISOString(),
  };
}

/** Sends error-level events to the control plane, scrubbed and rate limited; does nothing when disabled. */
export function createErrorReporter(options: ErrorReporterOptions): ErrorReporter {
  const perMinute = options.perMinute ?? 10;
  const pending = new Set<Promise<void>>();
  let windowStart = 0;
  let sentInWindow = 0;

  return {
    report(event) {
      if (!options.enabled) return;
      const now = Date.now();
      if (now - windowStart >= 60_000) {
        windowStart = now;
        sentInWindow = 0;
      }
      if (sentInWindow >= perMinute) return;
      sentInWindow++;
      const sending = options
        .send(buildErrorReport(event, options))
        .catch((error) => options.onSendFailure?.(error))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },
    async flush() {
      await Promise.allSettled([...pending]);
    },
  };
}

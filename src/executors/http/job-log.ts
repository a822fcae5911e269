import type { JobLogLine } from '../../checks/index.js';

let lastMs = 0;
let lastIso = '';

/** Now as an ISO string, made once per millisecond: a run writes several lines within one. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** The lines a run writes to its result's jobLog, in order. */
export class JobLog {
  readonly lines: JobLogLine[] = [];

  private add(level: JobLogLine['level'], msg: string): void {
    this.lines.push({ time: isoNow(), level, msg });
  }

  /** Lines written elsewhere (a script's output), with their own times. */
  append(lines: readonly JobLogLine[]): void {
    this.lines.push(...lines);
  }

  debug(msg: string): void {
    this.add('DEBUG', msg);
  }

  info(msg: string): void {
    this.add('INFO', msg);
  }

  warn(msg: string): void {
    this.add('WARN', msg);
  }

  error(msg: string): void {
    this.add('ERROR', msg);
  }
}

import type { JobLogLine } from '../../checks/index.js';
import { isoTime } from '../../checks/iso-time.js';

/** The lines a run writes to its result's jobLog, in order. */
export class JobLog {
  readonly lines: JobLogLine[] = [];

  private add(level: JobLogLine['level'], msg: string): void {
    this.lines.push({ time: isoTime(Date.now()), level, msg });
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

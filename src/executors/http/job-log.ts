import type { JobLogLine } from '../../checks/index.js';

/** The lines a run writes to its result's jobLog, in order. */
export class JobLog {
  readonly lines: JobLogLine[] = [];

  private add(level: JobLogLine['level'], msg: string): void {
    this.lines.push({ time: new Date().toISOString(), level, msg });
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

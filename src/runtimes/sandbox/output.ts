import type { JobLogLine } from '../../checks/index.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal codes start with ESC.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** Removes terminal colour and cursor codes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * The log of a run: the output of its processes line by line (stdout at INFO, stderr at WARN) and the runner's
 * own notes, up to `maxBytes`; what comes after is counted, not kept.
 */
export class RunLog {
  private readonly kept: JobLogLine[] = [];
  private readonly partial = { stdout: '', stderr: '' };
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly maxBytes = 1_000_000) {}

  /** A chunk of a process's output. */
  write(stream: 'stdout' | 'stderr', chunk: Buffer | string): void {
    const text = this.partial[stream] + chunk.toString();
    const lines = text.split(/\r?\n/);
    this.partial[stream] = lines.pop() ?? '';
    for (const line of lines) this.add(stream === 'stdout' ? 'INFO' : 'WARN', line);
  }

  add(level: JobLogLine['level'], msg: string, time = new Date()): void {
    const clean = stripAnsi(msg).replace(/\s+$/, '');
    if (clean === '') return;
    if (this.bytes + clean.length > this.maxBytes) {
      this.dropped++;
      return;
    }
    this.bytes += clean.length;
    this.kept.push({ time: time.toISOString(), level, msg: clean });
  }

  /** Every line so far, the unfinished ones included, oldest first. */
  lines(): JobLogLine[] {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream] !== '') this.write(stream, '\n');
    }
    const lines = [...this.kept].sort((a, b) => a.time.localeCompare(b.time));
    if (this.dropped > 0) {
      lines.push({
        time: new Date().toISOString(),
        level: 'WARN',
        msg: `${this.dropped} more lines were not kept (the log of a run holds at most ${this.maxBytes} bytes)`,
      });
    }
    return lines;
  }
}

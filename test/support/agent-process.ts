import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT, vantageCommand } from './vantage-command.js';

/** A command prefix that runs the agent with `dir` as a tmpfs of its own: `options` e.g. `size=256k` or `ro`. */
export const onTmpfs = (dir: string, options: string): string[] => [
  'unshare',
  '-m',
  '--propagation',
  'private',
  'sh',
  '-c',
  `mount -t tmpfs -o ${options} tmpfs "$0" && exec "$@"`,
  dir,
];

/** The real `vantage agent` process (from source through tsx, or `built` from dist/), its log lines and its health port. */
export class AgentProcess {
  readonly lines: Record<string, unknown>[] = [];
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  /**
   * `prefix` wraps the command line (e.g. setpriv, to start it as another user); `options.nodeFlags` go to node
   * (`vantageCommand`).
   */
  constructor(
    readonly env: Record<string, string>,
    prefix: readonly string[] = [],
    options: { built?: boolean; nodeFlags?: readonly string[] } = {},
  ) {
    const command = [...prefix, ...vantageCommand('agent', options.built, options.nodeFlags)];
    const [file = '', ...args] = command;
    this.child = spawn(file, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk;
      partial += chunk;
      const complete = partial.split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete) if (line.trim()) this.lines.push(JSON.parse(line));
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk;
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code, signal }));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  async waitForLog(what: string, match: (line: Record<string, unknown>) => boolean, timeoutMs = 15_000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.find(match);
      if (line) return line;
      if (Date.now() > end)
        throw new Error(`timed out waiting for log: ${what}\n${this.stdout}\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waits for the start: from source through tsx on a loaded 2-core machine that can take many seconds. */
  async healthPort(): Promise<number> {
    const started = await this.waitForLog('agent started', (l) => l.msg === 'agent started', 60_000);
    return started.healthPort as number;
  }

  /** The ids of the runs this process started. */
  startedRuns(): string[] {
    return this.lines.filter((l) => l.msg === 'run started').map((l) => String(l.runId));
  }
}

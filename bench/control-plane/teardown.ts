/**
 * Everything a row starts is undone, in reverse order, whether the row ends well, fails, or the bench is stopped
 * (SIGINT, SIGTERM); child processes still alive when the bench exits anyhow are killed.
 */
import type { ChildProcess } from 'node:child_process';

type Step = () => Promise<void> | void;

const running = new Set<Teardown>();
const children = new Set<{ kill(signal: NodeJS.Signals): void }>();

export class Teardown {
  private readonly steps: { what: string; step: Step }[] = [];

  constructor() {
    running.add(this);
  }

  add(what: string, step: Step): void {
    this.steps.push({ what, step });
  }

  /** A child process to kill at exit should the steps never run. */
  child(process: { kill(signal: NodeJS.Signals): void } | ChildProcess): void {
    children.add(process);
    this.add('forget a child', () => {
      children.delete(process);
    });
  }

  async run(): Promise<void> {
    running.delete(this);
    for (const { what, step } of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        console.error(`  cleaning up (${what}) failed: ${(error as Error).message}`);
      }
    }
  }
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and agents, removing the stores`);
    void Promise.all([...running].map((t) => t.run())).finally(() => process.exit(130));
  });
}

/** Asks a process to stop; kills it when it has not exited within `graceMs`. */
export async function stopProcess(
  process: { kill(signal: NodeJS.Signals): void; exited: Promise<unknown> },
  graceMs = 30_000,
): Promise<void> {
  process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  if ((await Promise.race([process.exited, late])) === 'late') {
    process.kill('SIGKILL');
    await process.exited;
  }
  clearTimeout(timer);
}

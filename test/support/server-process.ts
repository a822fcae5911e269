import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { ROOT, vantageCommand } from './vantage-command.js';

/** The real `vantage server` process (from source through tsx, or `built` from dist/) and what it printed. */
export class ServerProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  /** `options.nodeFlags` go to node (`vantageCommand`). */
  constructor(env: Record<string, string>, options: { built?: boolean; nodeFlags?: readonly string[] } = {}) {
    const [file = '', ...args] = vantageCommand('server', options.built, options.nodeFlags);
    this.child = spawn(file, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk;
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

  /** Waits until it prints its listening line; throws with its output when it exits first. */
  async listening(timeoutMs = 90_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    while (!this.stdout.includes(' listening on ')) {
      if (exited || Date.now() > end) {
        throw new Error(`the server did not start\n${this.stdout}\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Waits for the admin key a first start prints after its listening line. */
  async keyPrinted(timeoutMs = 10_000): Promise<{ accountId: string; apiKey: string }> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const key = this.printedKey;
      if (key) return key;
      if (Date.now() > end) throw new Error(`no key printed\n${this.stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The admin key it printed on its first start, with its account. */
  get printedKey(): { accountId: string; apiKey: string } | null {
    const account = /x-service-account: (\S+)/.exec(this.stdout)?.[1];
    const apiKey = /Authorization: Bearer (\S+)/.exec(this.stdout)?.[1];
    return account && apiKey ? { accountId: account, apiKey } : null;
  }

  async stop(): Promise<void> {
    this.kill('SIGTERM');
    await this.exited;
  }
}

/** A port of 127.0.0.1 that was free a moment ago, for a process to listen on. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A JSON API call to a server process on `port` with the key it printed. */
export async function processApi(
  port: number,
  key: { accountId: string; apiKey: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key.apiKey}`,
      'x-service-account': key.accountId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

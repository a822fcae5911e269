import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type AgentHandle, type AgentOptions, startAgent } from '../../src/agent/agent.js';
import { loadConfig } from '../../src/agent/config.js';
import { createLogger, type Logger, type LogLevelName } from '../../src/observability/logger.js';
import { SecretValues } from '../../src/observability/secret-values.js';

/** The logger the processes build (secrets masked), writing into a LogCapture the test reads. */
export function capturingLogger(level: LogLevelName): { logger: Logger; logs: LogCapture } {
  const logs = new LogCapture();
  return { logger: createLogger({ level, secrets: new SecretValues(), destination: logs }), logs };
}

/** Log lines an in-process agent wrote, as text and parsed. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  }

  get text(): string {
    return this.lines.join('\n');
  }

  entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The ids of the runs this agent started. */
  startedRuns(): string[] {
    return this.entries()
      .filter((e) => e.msg === 'run started')
      .map((e) => String(e.runId));
  }
}

export interface TestAgent {
  agent: AgentHandle;
  logs: LogCapture;
  dataDir: string;
  health(path: string): Promise<{ status: number; text: string }>;
}

/** Where an agent connects: the control plane's base URL and a private-location key. */
export interface AgentTarget {
  url: string;
  key: string;
}

/** Fast back-off so tests see reconnects and retries within a second or two. */
export const FAST: AgentOptions = {
  reconnect: { baseMs: 50, maxMs: 400 },
  deliveryRetry: { baseMs: 50, maxMs: 400 },
  fatalRetryMs: 60_000,
};

/** Starts an agent in this process, configured through the same env parsing as the CLI. */
export async function startTestAgent(
  target: AgentTarget,
  env: Record<string, string> = {},
  options: AgentOptions = {},
): Promise<TestAgent> {
  const dataDir = env.AGENT_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'vantage-agent-')));
  const loaded = loadConfig({
    API_KEY: target.key,
    API_URL: target.url,
    AGENT_HEALTH_PORT: '0',
    LOG_LEVEL: 'DEBUG',
    SHUTDOWN_GRACE_SECONDS: '5',
    ...env,
    AGENT_DATA_DIR: dataDir,
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const logs = new LogCapture();
  const agent = await startAgent(loaded.config, { ...FAST, ...options, logDestination: logs });
  return {
    agent,
    logs,
    dataDir,
    health: async (path) => {
      const res = await fetch(`http://127.0.0.1:${agent.healthPort}${path}`);
      return { status: res.status, text: await res.text() };
    },
  };
}

/** Waits until `probe` holds; throws naming `what` when it does not within the time. */
export async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

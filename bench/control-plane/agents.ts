/** The agents of a row: one real `vantage agent` process, or one simulated agent per server replica. */
import { join } from 'node:path';
import { AgentProcess } from '../../test/support/agent-process.js';
import type { AgentMode, BenchOptions } from './options.js';
import type { Replica } from './servers.js';
import { SimulatedAgent } from './simulated-agent.js';
import { stopProcess, type Teardown } from './teardown.js';

export interface Agents {
  /** The real agent's process, whose CPU is measured. */
  process: AgentProcess | null;
  simulated: SimulatedAgent[];
  /** Runs the simulated agents answered so far, and those they are answering now. */
  answered(): number;
  inFlight(): number;
  /** Stops them all; answers what the control plane refused them. */
  stop(): Promise<string[]>;
}

export async function startAgents(
  mode: AgentMode,
  where: { servers: Replica[]; key: string; accountId: string; dataDir: string },
  options: BenchOptions,
  teardown: Teardown,
): Promise<Agents> {
  let agent: AgentProcess | null = null;
  const simulated: SimulatedAgent[] = [];
  if (mode === 'real') {
    const started = new AgentProcess(
      {
        API_KEY: where.key,
        API_URL: where.servers[0]?.url ?? '',
        JOB_CONCURRENCY: String(options.jobConcurrency),
        ...(options.agentThreads === undefined ? {} : { AGENT_THREADS: options.agentThreads }),
        AGENT_DATA_DIR: join(where.dataDir, 'agent'),
        AGENT_HEALTH_PORT: '0',
        LOG_LEVEL: options.logLevel,
        EXTERNAL_OBSERVABILITY: 'off',
        // The window's CPU profile is taken through the inspector (bench/control-plane/profile.ts).
        ...(options.cpuProfile ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
      },
      [],
      { built: true, nodeFlags: options.agentNodeFlags },
    );
    teardown.child(started);
    teardown.add('stop the agent', () => stopProcess(started));
    agent = started;
  } else {
    // The idle row too: its agents answer the run each check makes when created, then leave.
    for (const [i, server] of where.servers.entries()) {
      const id = `bench-agent-${i + 1}`;
      const one = await SimulatedAgent.connect(server.url, where.key, where.accountId, id, options.credits);
      teardown.add('close a simulated agent', () => one.close());
      simulated.push(one);
    }
  }
  let stopped = false;
  return {
    process: agent,
    simulated,
    answered: () => simulated.reduce((sum, one) => sum + one.answered, 0),
    inFlight: () => simulated.reduce((sum, one) => sum + one.running, 0),
    async stop() {
      if (stopped) return [];
      stopped = true;
      if (agent) await stopProcess(agent);
      const notes: string[] = [];
      for (const one of simulated) {
        one.close();
        for (const [status, count] of one.refused)
          notes.push(`${count} uploads answered HTTP ${status || 'nothing'}`);
      }
      return notes;
    },
  };
}

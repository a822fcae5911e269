import { type AgentHandle, StartupError, startAgent } from '../agent/agent.js';
import { loadConfig } from '../agent/config.js';
import { onShutdownSignals } from '../agent/shutdown.js';
import { problemLines } from '../config/env.js';
import { collectStartUpGarbage, leaveStartUpMode } from './start-up-mode.js';

/** Exit status of `vantage agent`. */
export const AGENT_EXIT = { stopped: 0, crashed: 1, badConfig: 2 } as const;

/** From the agent started to its start-up garbage collected (`collectStartUpGarbage`). */
const START_UP_SETTLE_MS = 1000;
/** 128 + the signal's number, as shells report a process ended by a signal. */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * At its first run the agent leaves the start-up mode with Maglev on and TurboFan off for good: what TurboFan spent
 * compiling the agent's hot paths was never paid back by faster code, in a burst (0.9–1.1 against 1.45–1.5 ms of
 * CPU per run over 1,000 runs) nor at 300 runs/s over seven minutes (docs/agent.md, "Maglev alone").
 */
function leaveStartUpModeForRuns(): void {
  leaveStartUpMode({ turbofan: false });
}

/**
 * `vantage agent`: reads its settings from the environment (a bad one: one line, exit 2), runs until SIGTERM or
 * SIGINT (graceful, exit 0); a second signal exits at once.
 */
export async function agentCommand(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    process.stderr.write(problemLines(loaded.problems));
    process.exit(AGENT_EXIT.badConfig);
  }
  let agent: AgentHandle;
  try {
    agent = await startAgent(loaded.config, { onRunnerLoaded: leaveStartUpModeForRuns });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(AGENT_EXIT.badConfig);
  }
  // Once the first exchanges with the control plane are done, not in their way.
  setTimeout(collectStartUpGarbage, START_UP_SETTLE_MS).unref();

  onShutdownSignals({
    graceful: (signal) => {
      agent.log.info({ signal }, 'received a shutdown signal (send it again to exit at once)');
      agent.stop().then(
        () => process.exit(AGENT_EXIT.stopped),
        (error) => {
          agent.log.error({ err: error }, 'shutdown failed');
          process.exit(AGENT_EXIT.crashed);
        },
      );
    },
    immediate: (signal) => {
      agent.log.warn({ signal }, 'second shutdown signal: exiting at once');
      process.exit(SIGNAL_EXIT[signal] ?? AGENT_EXIT.crashed);
    },
  });
  process.on('uncaughtException', (error) => {
    agent.log.fatal({ err: error }, 'uncaught exception; the agent exits (spooled results are kept)');
    void Promise.race([agent.flushErrorReports(), new Promise((r) => setTimeout(r, 2000))]).finally(() =>
      process.exit(AGENT_EXIT.crashed),
    );
  });
  process.on('unhandledRejection', (reason) => {
    agent.log.error({ err: reason }, 'unhandled promise rejection');
  });
}

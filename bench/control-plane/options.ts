import { parseArgs } from 'node:util';
import { words } from '../support.js';

export type StoreKind = 'pglite' | 'postgres';
/** `real`: one `vantage agent` process; `simulated`: in-bench agents that answer every run at once; `idle`: none. */
export type AgentMode = 'real' | 'simulated' | 'idle';

/** One row of the table: one fresh store, fresh servers, fresh checks. */
export interface Scenario {
  mode: AgentMode;
  store: StoreKind;
  checks: number;
  replicas: number;
  /** Each replica's CPU limit in cores (a cgroup quota, applied once the checks exist), or none. */
  replicaCpu: number | null;
}

export interface Timing {
  /**
   * Seconds from the agents' connection to the window's start (then rounded up to a slot boundary); null: each row's
   * own (`warmupFor`).
   */
  warmupS: number | null;
  /** Seconds measured: a whole number of 10-second slots. */
  windowS: number;
  /** Seconds after the window during which a run of one of its slots may still arrive. */
  drainS: number;
}

export interface BenchOptions extends Timing {
  scenarios: Scenario[];
  /** JOB_CONCURRENCY of the real agent. */
  jobConcurrency: number;
  /** AGENT_THREADS of the real agent, as given; the agent's default (auto) when absent. */
  agentThreads?: string;
  /** node's own flags for the real agent (V8's, e.g. --turbofan), split at spaces. */
  agentNodeFlags: string[];
  /** node's own flags for each server, as agentNodeFlags. */
  serverNodeFlags: string[];
  /** Credit each simulated agent grants (its runs at once). */
  credits: number;
  /** LOG_LEVEL of the server and the agent. */
  logLevel: string;
  build: boolean;
  /** Sample the servers' CPU during the window and print where it went. */
  cpuProfile: boolean;
  /** With cpuProfile: a folder that keeps each process's whole profile of the window (.cpuprofile files). */
  profileDir: string | null;
}

export const SLOT_MS = 10_000;

/**
 * The warm-up of a row with a real agent: long enough for V8 to have compiled the hot paths of the agent and the
 * server. At 30 runs/s their compilers still work through the first two minutes (the agent spends about 1.2 ms of CPU
 * per run in its first minute, 0.6–0.7 ms from its third: docs/agent.md, "Warm-up and the floor at a low rate"), so a shorter warm-up measures
 * the compilers rather than what a running agent costs. Rows without a real agent keep the short one.
 */
const REAL_AGENT_WARMUP_S = 120;
const WARMUP_S = 20;

/** The warm-up of one row: the one given (--warmup), else by the row's agent. */
export function warmupFor(options: Timing, scenario: Scenario): number {
  return options.warmupS ?? (scenario.mode === 'real' ? REAL_AGENT_WARMUP_S : WARMUP_S);
}

const BY_ROW = `${REAL_AGENT_WARMUP_S} with a real agent, else ${WARMUP_S}`;

/** The warm-up as the bench's first line states it. */
export function warmupText(options: Timing): string {
  return options.warmupS === null ? `by row (${BY_ROW} s)` : `${options.warmupS} s`;
}

/**
 * The full matrix's scale-out rows: each replica limited to a tenth of a core saturates at about 700 runs/s (400
 * before the lease's picks got cheaper), so that one replica and two both fall short of 1,600 runs/s due while
 * PostgreSQL and the simulated agents still have room on two cores (without a limit, one replica keeps up with
 * 2,000 runs/s at about a fifth of a core and the machine saturates first). Where two replicas keep up with the
 * load, the load, not they, bounds their ratio.
 */
const SCALE_OUT_REPLICA_CPU = 0.1;
const SCALE_OUT_CHECKS = 16_000;

/**
 * Without arguments, the whole matrix (`npm run bench`): a real agent at 1,000 and 3,000 checks on both
 * stores, simulated agents on PostgreSQL with one and two replicas, at 20,000 checks (2,000 runs/s due) and at
 * 12,000 checks with each replica limited to a tenth of a core, and the idle control plane with 10,000 checks on
 * both stores.
 */
const FULL_SUITE: Scenario[] = [
  ...(['pglite', 'postgres'] as const).flatMap((store) =>
    [1000, 3000].map((checks): Scenario => ({ mode: 'real', store, checks, replicas: 1, replicaCpu: null })),
  ),
  ...[
    { checks: 20_000, replicaCpu: null },
    { checks: SCALE_OUT_CHECKS, replicaCpu: SCALE_OUT_REPLICA_CPU },
  ].flatMap((load) =>
    [1, 2].map((replicas): Scenario => ({ mode: 'simulated', store: 'postgres', replicas, ...load })),
  ),
  ...(['pglite', 'postgres'] as const).map(
    (store): Scenario => ({ mode: 'idle', store, checks: 10_000, replicas: 1, replicaCpu: null }),
  ),
];

export const USAGE = `usage: node --import tsx bench/control-plane.ts [options]   (no options: the full matrix)
  --store pglite|postgres[,…]     store(s) to measure                       (default pglite)
  --checks N[,…]                  API checks every 10 s on one location     (default 1000; --idle: 10000)
  --agent real|simulated          one vantage agent process, or in-bench agents answering at once (default real)
  --replicas 1|2[,…]              control-plane replicas on one PostgreSQL  (default 1; 2 needs --store postgres)
  --replica-cpu C                 limit each replica to C cores (a cgroup CPU quota, e.g. 0.1; needs root), from
                                  when its checks exist: the replica, not the machine, saturates first
  --idle                          no agent, checks due once a day: the idle control plane's CPU and RSS
  --warmup S                      seconds before the window                 (default ${BY_ROW})
  --window S                      seconds measured, whole 10-s slots        (default 60)
  --drain S                       seconds a window's run may still arrive after it (default 20)
  --job-concurrency N             JOB_CONCURRENCY of the real agent         (default 100)
  --agent-threads N|auto          AGENT_THREADS of the real agent           (default: the agent's, auto)
  --agent-node-flags=F            node's flags for the real agent, space-separated (default none), e.g.
                                  --agent-node-flags=--turbofan
  --server-node-flags=F           node's flags for each server              (default none)
  --credits N                     runs each simulated agent holds at once   (default 1000)
  --log-level L                   LOG_LEVEL of server and agent             (default WARN)
  --no-build                      skip npm run build (dist/ is current)
  --cpu-profile                   sample the servers and the real agent during the window; print their hottest
                                  areas and functions
  --profile-dir DIR               with --cpu-profile: keep each process's whole profile (.cpuprofile, for
                                  Chrome DevTools) in DIR
PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL, else scripts/start-test-postgres.sh; a fresh database per row.`;

function list<T>(value: string | undefined, fallback: T[], parse: (item: string) => T): T[] {
  return value === undefined ? fallback : value.split(',').map((item) => parse(item.trim()));
}

function oneOf<T extends string>(name: string, allowed: readonly T[]) {
  return (item: string): T => {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new Error(`--${name}: must be one of ${allowed.join(', ')} (got ${item})`);
    }
    return item as T;
  };
}

function whole(name: string, min: number) {
  return (item: string): number => {
    const n = Number(item);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name}: must be a whole number ≥ ${min} (got ${item})`);
    return n;
  };
}

function cores(item: string): number {
  const n = Number(item);
  if (!Number.isFinite(n) || n <= 0 || n > 64) {
    throw new Error(`--replica-cpu: must be a number of cores above 0, such as 0.1 (got ${item})`);
  }
  return n;
}

/** The options of a command line; throws with one line naming the bad option. */
export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      store: { type: 'string' },
      checks: { type: 'string' },
      agent: { type: 'string' },
      replicas: { type: 'string' },
      'replica-cpu': { type: 'string' },
      idle: { type: 'boolean' },
      warmup: { type: 'string' },
      window: { type: 'string' },
      drain: { type: 'string' },
      'job-concurrency': { type: 'string' },
      'agent-threads': { type: 'string' },
      'agent-node-flags': { type: 'string' },
      'server-node-flags': { type: 'string' },
      credits: { type: 'string' },
      'log-level': { type: 'string' },
      'no-build': { type: 'boolean' },
      'cpu-profile': { type: 'boolean' },
      'profile-dir': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const matrixArgs = ['store', 'checks', 'agent', 'replicas', 'replica-cpu', 'idle'] as const;
  const full = matrixArgs.every((name) => values[name] === undefined);
  const mode: AgentMode = values.idle
    ? 'idle'
    : oneOf('agent', ['real', 'simulated'] as const)(values.agent ?? 'real');
  const stores = list<StoreKind>(values.store, ['pglite'], oneOf('store', ['pglite', 'postgres'] as const));
  const checks = list(values.checks, [mode === 'idle' ? 10_000 : 1000], whole('checks', 1));
  const replicas = list(values.replicas, [1], whole('replicas', 1));
  const replicaCpu = values['replica-cpu'] === undefined ? null : cores(values['replica-cpu']);
  const scenarios = full
    ? FULL_SUITE
    : stores.flatMap((store) =>
        checks.flatMap((n) =>
          replicas.map((r): Scenario => ({ mode, store, checks: n, replicas: r, replicaCpu })),
        ),
      );
  for (const s of scenarios) {
    if (s.replicas > 1 && s.store !== 'postgres') {
      throw new Error('--replicas: more than one replica needs --store postgres (PGlite serves one process)');
    }
    if (s.replicas > 1 && s.mode !== 'simulated') {
      throw new Error('--replicas: more than one replica is measured with --agent simulated');
    }
  }
  const windowS = whole('window', 10)(values.window ?? '60');
  return {
    scenarios,
    warmupS: values.warmup === undefined ? null : whole('warmup', 0)(values.warmup),
    windowS: Math.ceil(windowS / (SLOT_MS / 1000)) * (SLOT_MS / 1000),
    drainS: whole('drain', 0)(values.drain ?? '20'),
    jobConcurrency: whole('job-concurrency', 1)(values['job-concurrency'] ?? '100'),
    agentThreads: values['agent-threads'],
    agentNodeFlags: words(values['agent-node-flags']),
    serverNodeFlags: words(values['server-node-flags']),
    credits: whole('credits', 1)(values.credits ?? '1000'),
    logLevel: values['log-level'] ?? 'WARN',
    build: !values['no-build'],
    cpuProfile: values['cpu-profile'] === true || values['profile-dir'] !== undefined,
    profileDir: values['profile-dir'] ?? null,
  };
}

/**
 * Runs through a real agent, end to end (issues 14 and 17): a `vantage server` process and a `vantage agent` process
 * (JOB_CONCURRENCY=100, both from dist/: `npm run build` first) on this machine; RUNS sessions of 100 API checks
 * against a local target are triggered at once, and the bench waits until the agent has run them all and the
 * control plane has acknowledged every result; then the same again through the same agent. The first burst also
 * holds what an agent pays once, at its first run (loading its runner, compiling its hot code: about 0.5–0.7 s of
 * CPU), the second what each run costs an agent at work, which the goal is about (as bench/blackbox.ts leaves
 * start-up out). It reports the CPU each process spent per run in each burst (the server's from the
 * trigger to the stored result: sessions, leases, results, session ends, alerting; the agent's from accepting the
 * run to its result acknowledged) and how long the whole took. On PGlite, and on PostgreSQL when TEST_DATABASE_URL
 * is set. For comparison it runs the same checks as many times in this process, executors alone, and reports
 * their CPU per run: the rest of the agent's is what the agent adds around a check (messages, queues, spool,
 * delivery, logs).
 * Goal (issue 17): the agent's CPU per run in the second burst, its check included, at most GOAL_AGENT_MS (the
 * first burst's is printed beside it, with what the agent paid once). The server's has no goal
 * here: its ≤ 1 ms is for scheduled runs (bench/control-plane.ts).
 * Run: npx tsx bench/agent-ingest.ts [runs, default 1000] [store]
 * With AGENT_PROFILE_DIR=<folder>, the agent writes a CPU profile there (node --cpu-prof) when it stops.
 * With AGENT_NODE_FLAGS='<flags>', node runs the agent with those flags too (V8's, e.g. --turbofan).
 * With AGENT_THREADS=<n|auto>, the agent runs with that setting (its default, auto, otherwise).
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentProcess } from '../test/support/agent-process.js';
import { startCountingTarget } from '../test/support/counting-target.js';
import { freshPostgresDatabase, STORES, type Store } from '../test/support/server.js';
import { freePort, processApi, ServerProcess } from '../test/support/server-process.js';
import { apiCheck } from './agent-ingest/check.js';
import { cpuSeconds } from './control-plane/proc.js';
import { words } from './support.js';

const RUNS = Number(process.argv[2] ?? 1000);
const ONLY_STORE = process.argv[3] ?? '';
/** Checks made (the API's rate limit allows 600 calls a minute); each is triggered RUNS / CHECKS times. */
const CHECKS = 100;
const GOAL_AGENT_MS = 1;
const CONCURRENCY = 100;

const here = fileURLToPath(new URL('.', import.meta.url));
const cpuMs = (pid: number) => cpuSeconds(pid) * 1000;

async function until(what: string, ok: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** CPU ms per run of the same checks run by the executors alone, in a process of their own. */
async function checkAloneCpuMs(): Promise<number> {
  const target = await startCountingTarget();
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(here, 'agent-ingest/checks-alone.ts'),
        target.url('/alone-'),
        String(CHECKS),
        String(RUNS),
        String(CONCURRENCY),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`checks-alone.ts exited with ${code}`);
    return (JSON.parse(out) as { cpuMsPerRun: number }).cpuMsPerRun;
  } finally {
    await target.close();
  }
}

interface Burst {
  seconds: number;
  serverCpuMsPerRun: number;
  agentCpuMsPerRun: number;
}

async function measure(store: Store): Promise<{ store: Store; first: Burst; second: Burst }> {
  const folder = await mkdtemp(join(tmpdir(), 'vantage-bench-ingest-'));
  const database = store === 'postgres' ? await freshPostgresDatabase() : null;
  const target = await startCountingTarget();
  const port = await freePort();
  const server = new ServerProcess(
    {
      PORT: String(port),
      VANTAGE_DATA_DIR: join(folder, 'server'),
      LOG_LEVEL: 'INFO',
      ...(database ? { DATABASE_URL: database.url } : {}),
    },
    { built: true },
  );
  let agent: AgentProcess | null = null;
  try {
    await server.listening(120_000);
    const key = await server.keyPrinted();
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await processApi(port, key, method, path, body);
      if (answer.status >= 300)
        throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const location = await api('POST', '/v1/private-locations', { name: 'Bench', slugName: 'bench' });
    const checkIds: string[] = [];
    for (let i = 0; i < CHECKS; i++) {
      const check = await api(
        'POST',
        '/v1/checks?autoAssignAlerts=false',
        apiCheck(target.url(`/bench-${i}`)),
      );
      checkIds.push(check.id);
    }
    const agentNodeFlags = [
      ...(process.env.AGENT_PROFILE_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AGENT_PROFILE_DIR}`]
        : []),
      ...words(process.env.AGENT_NODE_FLAGS),
    ];
    agent = new AgentProcess(
      {
        API_KEY: location.keys[0].rawKey,
        API_URL: `http://127.0.0.1:${port}`,
        AGENT_HEALTH_PORT: '0',
        AGENT_DATA_DIR: join(folder, 'agent'),
        JOB_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: 'INFO',
        ...(process.env.AGENT_THREADS ? { AGENT_THREADS: process.env.AGENT_THREADS } : {}),
      },
      [],
      { built: true, nodeFlags: agentNodeFlags },
    );
    const healthPort = await agent.healthPort();
    const health = async () =>
      (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as {
        connected: boolean;
        running: number;
        queued: number;
        spooled: number;
      };
    await until('the agent connected', async () => (await health()).connected, 60_000);

    // Two bursts through the same agent: the first also pays what an agent pays once (loading its runner at its first
    // run, compiling its hot code), the second is what each run costs an agent already at work.
    const agentPid = agent.pid;
    const burst = async (index: number): Promise<Burst> => {
      const serverBefore = cpuMs(server.pid);
      const agentBefore = cpuMs(agentPid);
      const started = performance.now();
      for (let i = 0; i < RUNS; i += CHECKS) {
        await api('POST', '/v2/check-sessions/trigger', { target: { checkId: checkIds.slice(0, RUNS - i) } });
      }
      await until('every run at the target', async () => target.count('/bench-') >= RUNS * index, 600_000);
      await until(
        'every result acknowledged',
        async () => {
          const h = await health();
          return h.running === 0 && h.queued === 0 && h.spooled === 0;
        },
        600_000,
      );
      return {
        seconds: (performance.now() - started) / 1000,
        serverCpuMsPerRun: (cpuMs(server.pid) - serverBefore) / RUNS,
        agentCpuMsPerRun: (cpuMs(agentPid) - agentBefore) / RUNS,
      };
    };
    const first = await burst(1);
    const second = await burst(2);
    return { store, first, second };
  } finally {
    agent?.kill('SIGTERM');
    await agent?.exited;
    await server.stop();
    await target.close();
    await database?.drop();
    await rm(folder, { recursive: true, force: true });
  }
}

console.log(
  `${RUNS} sessions of ${CHECKS} API checks triggered at once, run by one agent (JOB_CONCURRENCY=${CONCURRENCY}), twice:`,
);
console.log(
  'the first burst also pays what an agent pays once (its runner loaded at its first run, its code compiled); the goal is the second',
);
const alone = await checkAloneCpuMs();
console.log(
  '| store | burst | seconds until every result is acknowledged | server CPU ms per run | agent CPU ms per run | of which the check (executor alone) | the agent around it |',
);
console.log('|---|---|---|---|---|---|---|');
let missed = false;
for (const store of STORES.filter((s) => s.includes(ONLY_STORE))) {
  const m = await measure(store);
  const row = (name: string, b: Burst, check: string, around: string) =>
    console.log(
      `| ${m.store} | ${name} | ${b.seconds.toFixed(1)} | ${b.serverCpuMsPerRun.toFixed(2)} | ${b.agentCpuMsPerRun.toFixed(2)} | ${check} | ${around} |`,
    );
  // The executors alone are measured warm: they compare with the second burst only.
  row('first', m.first, '—', '—');
  row('second', m.second, alone.toFixed(2), (m.second.agentCpuMsPerRun - alone).toFixed(2));
  const once = (m.first.agentCpuMsPerRun - m.second.agentCpuMsPerRun) * RUNS;
  console.log(
    `| ${m.store} | what the agent paid once (first less second) | | | ${once.toFixed(0)} ms | | |`,
  );
  if (m.second.agentCpuMsPerRun > GOAL_AGENT_MS) missed = true;
}
console.log(
  missed
    ? `\nmissed: the agent spent more than ${GOAL_AGENT_MS} ms of CPU per run`
    : `\ngoal met: at most ${GOAL_AGENT_MS} ms of agent CPU per run`,
);
process.exitCode = missed ? 1 : 0;

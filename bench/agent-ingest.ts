/**
 * Runs through a real agent, end to end (issue 14): a `vantage server` process and a `vantage agent` process
 * (JOB_CONCURRENCY=100) on this machine; RUNS sessions of 100 API checks against a local target are triggered at
 * once, and the bench waits until the agent has run them all and the control plane has acknowledged every result. It reports the
 * CPU each process spent per run (the server's from the trigger to the stored result: sessions, leases, results,
 * session ends, alerting) and how long the whole took. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 * It reports, with no goal of its own: the goal of ≤ 1 ms of the control plane's CPU per run is for scheduled runs.
 * Run: npx tsx bench/agent-ingest.ts [runs, default 1000] [store]
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../test/support/agent-process.js';
import { startCountingTarget } from '../test/support/counting-target.js';
import { freshPostgresDatabase, STORES, type Store } from '../test/support/server.js';
import { freePort, processApi, ServerProcess } from '../test/support/server-process.js';

const RUNS = Number(process.argv[2] ?? 1000);
const ONLY_STORE = process.argv[3] ?? '';
/** Checks made (the API's rate limit allows 600 calls a minute); each is triggered RUNS / CHECKS times. */
const CHECKS = 100;

/** CPU milliseconds a process has used so far (user and system), from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measure(store: Store) {
  const folder = await mkdtemp(join(tmpdir(), 'vantage-bench-ingest-'));
  const database = store === 'postgres' ? await freshPostgresDatabase() : null;
  const target = await startCountingTarget();
  const port = await freePort();
  const server = new ServerProcess({
    PORT: String(port),
    VANTAGE_DATA_DIR: join(folder, 'server'),
    LOG_LEVEL: 'INFO',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
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
      const check = await api('POST', '/v1/checks?autoAssignAlerts=false', {
        checkType: 'API',
        name: `bench ${i}`,
        activated: false,
        doubleCheck: false,
        privateLocations: ['bench'],
        request: { url: target.url(`/bench-${i}`), method: 'GET' },
      });
      checkIds.push(check.id);
    }
    agent = new AgentProcess({
      API_KEY: location.keys[0].rawKey,
      API_URL: `http://127.0.0.1:${port}`,
      AGENT_HEALTH_PORT: '0',
      AGENT_DATA_DIR: join(folder, 'agent'),
      JOB_CONCURRENCY: '100',
      LOG_LEVEL: 'INFO',
    });
    const healthPort = await agent.healthPort();
    const health = async () =>
      (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as {
        connected: boolean;
        running: number;
        queued: number;
        spooled: number;
      };
    await until('the agent connected', async () => (await health()).connected, 60_000);

    const serverBefore = cpuMs(server.pid);
    const agentBefore = cpuMs(agent.pid);
    const started = performance.now();
    for (let i = 0; i < RUNS; i += CHECKS) {
      await api('POST', '/v2/check-sessions/trigger', { target: { checkId: checkIds.slice(0, RUNS - i) } });
    }
    await until('every run at the target', async () => target.count('/bench-') >= RUNS, 600_000);
    await until(
      'every result acknowledged',
      async () => {
        const h = await health();
        return h.running === 0 && h.queued === 0 && h.spooled === 0;
      },
      600_000,
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      store,
      seconds,
      serverCpuMsPerRun: (cpuMs(server.pid) - serverBefore) / RUNS,
      agentCpuMsPerRun: (cpuMs(agent.pid) - agentBefore) / RUNS,
    };
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
  `${RUNS} sessions of ${CHECKS} API checks triggered at once, run by one agent (JOB_CONCURRENCY=100)`,
);
console.log(
  '| store | seconds until every result is acknowledged | server CPU ms per run | agent CPU ms per run |',
);
console.log('|---|---|---|---|');
for (const store of STORES.filter((s) => s.includes(ONLY_STORE))) {
  const m = await measure(store);
  console.log(
    `| ${m.store} | ${m.seconds.toFixed(1)} | ${m.serverCpuMsPerRun.toFixed(2)} | ${m.agentCpuMsPerRun.toFixed(2)} |`,
  );
}

/** One row of the table: fresh store, servers, location, checks and agents; a measured window; all removed after. */
import { join } from 'node:path';
import { AgentProcess } from '../../test/support/agent-process.js';
import { freePort, ServerProcess } from '../../test/support/server-process.js';
import { quantile } from '../support.js';
import { type CpuFigures, CpuMeter } from './meter.js';
import { type BenchOptions, type Scenario, SLOT_MS } from './options.js';
import { pairArrivals, readSessions, type WindowFigures, windowFigures } from './outcome.js';
import { loadAverage } from './proc.js';
import { agentsConnected, apiOf, createChecks, createLocation, scheduleFields } from './setup.js';
import { SimulatedAgent } from './simulated-agent.js';
import { createStore } from './store.js';
import { startArrivalTarget } from './target.js';
import { stopProcess, Teardown } from './teardown.js';

export interface Row {
  scenario: Scenario;
  windowS: number;
  /** Absent for the idle control plane. */
  runs: (WindowFigures & { lagP50Ms: number; lagP99Ms: number }) | null;
  cpu: CpuFigures;
  load: string;
  notes: string[];
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

export async function runScenario(scenario: Scenario, options: BenchOptions): Promise<Row> {
  const { mode, checks, replicas } = scenario;
  const say = (what: string) =>
    console.log(
      `  [${scenario.store} N=${checks} ${mode} ×${replicas}] ${new Date().toISOString().slice(11, 19)} ${what}`,
    );
  const teardown = new Teardown();
  try {
    const store = await createStore(scenario.store);
    teardown.add('remove the store', () => store.remove());

    say('starting the control plane');
    const servers: { process: ServerProcess; port: number }[] = [];
    for (let replica = 1; replica <= replicas; replica++) {
      const port = await freePort();
      // The API's limit per key would make creating thousands of checks take many minutes.
      const env = {
        PORT: String(port),
        LOG_LEVEL: options.logLevel,
        API_RATE_LIMIT: '1000000',
        ...store.serverEnv(replica),
      };
      const server = new ServerProcess(env, { built: true });
      teardown.child(server);
      teardown.add(`stop server ${replica}`, () => stopProcess(server));
      servers.push({ process: server, port });
      // One at a time: the first migrates the store and makes the account.
      await server.listening();
    }
    const [first] = servers;
    if (!first) throw new Error('no server');
    const api = apiOf(first.port, await first.process.keyPrinted());
    const { accountId } = await first.process.keyPrinted();
    const location = await createLocation(api);

    const target = mode === 'real' ? await startArrivalTarget() : null;
    if (target) teardown.add('close the target', () => target.close());
    say(`creating ${checks} checks`);
    const ids = await createChecks(
      api,
      checks,
      scheduleFields(mode === 'idle'),
      (index) => target?.url(index) ?? `http://127.0.0.1:9/?c=${index}`,
      (made) => say(`${made} checks`),
    );

    let agent: AgentProcess | null = null;
    const simulated: SimulatedAgent[] = [];
    if (mode === 'real') {
      agent = new AgentProcess(
        {
          API_KEY: location.key,
          API_URL: `http://127.0.0.1:${first.port}`,
          JOB_CONCURRENCY: String(options.jobConcurrency),
          AGENT_DATA_DIR: join(store.dir, 'agent'),
          AGENT_HEALTH_PORT: '0',
          LOG_LEVEL: options.logLevel,
          EXTERNAL_OBSERVABILITY: 'off',
        },
        [],
        { built: true },
      );
      const started = agent;
      teardown.child(started);
      teardown.add('stop the agent', () => stopProcess(started));
    } else {
      for (const [i, server] of servers.entries()) {
        const url = `http://127.0.0.1:${server.port}`;
        const one = await SimulatedAgent.connect(
          url,
          location.key,
          accountId,
          `bench-agent-${i + 1}`,
          options.credits,
        );
        teardown.add('close a simulated agent', () => one.close());
        simulated.push(one);
      }
    }
    await agentsConnected(api, location.id, agent ? 1 : simulated.length).catch((error: Error) => {
      throw new Error(`${error.message}\n${agent?.stdout ?? ''}${agent?.stderr ?? ''}`);
    });
    say('agents connected');

    let startMs: number;
    let endMs: number;
    if (mode === 'idle') {
      // The run each check made when it was created is answered first: the idle control plane has an empty queue.
      const answered = () => simulated.reduce((sum, a) => sum + a.answered, 0);
      const drainEnd = Date.now() + 20 * 60_000;
      while (answered() < checks && Date.now() < drainEnd) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        say(`${answered()} of the ${checks} first runs answered`);
      }
      for (const one of simulated) one.close();
      startMs = Date.now() + 10_000;
      endMs = startMs + options.windowS * 1000;
    } else {
      startMs = Math.ceil((Date.now() + options.warmupS * 1000) / SLOT_MS) * SLOT_MS;
      endMs = startMs + options.windowS * 1000;
    }
    const watched = {
      serverPids: servers.map((s) => s.process.pid),
      agentPid: agent?.pid ?? null,
      backendPids: () => store.backendPids(),
    };
    await sleepUntil(startMs);
    say(`window of ${options.windowS} s`);
    const meter = await CpuMeter.begin(watched);
    await sleepUntil(endMs);
    const cpu = await meter.end();
    const load = loadAverage();
    const deadlineMs = endMs + (mode === 'idle' ? 0 : options.drainS * 1000);
    await sleepUntil(deadlineMs);

    const notes: string[] = [];
    if (agent) await stopProcess(agent);
    for (const one of simulated) {
      one.close();
      for (const [status, count] of one.refused)
        notes.push(`${count} uploads answered HTTP ${status || 'nothing'}`);
    }
    for (const server of servers) await stopProcess(server.process);
    if (mode === 'idle') return { scenario, windowS: cpu.seconds, runs: null, cpu, load, notes };

    say('reading the store');
    const db = await store.open();
    const sessions = await readSessions(db).finally(() => db.close());
    let arrivedAt = new Map<string, number>();
    if (target) {
      const byCheck = new Map(
        [...target.arrivals].map(([index, times]) => [ids[index] ?? '', times] as const),
      );
      const paired = pairArrivals(sessions, byCheck);
      arrivedAt = paired.arrivedAt;
      if (paired.unmatched > 0) notes.push(`${paired.unmatched} arrivals matched no session`);
    } else {
      for (const one of simulated) for (const [id, at] of one.received) arrivedAt.set(id, at);
    }
    const figures = windowFigures(sessions, arrivedAt, checks, { startMs, endMs, deadlineMs });
    const early = figures.lagsMs.filter((lag) => lag < 0).length;
    if (early > 0) notes.push(`${early} runs arrived before their slot began: their pairing is wrong`);
    const runs = {
      ...figures,
      lagP50Ms: quantile(figures.lagsMs, 0.5),
      lagP99Ms: quantile(figures.lagsMs, 0.99),
    };
    return { scenario, windowS: cpu.seconds, runs, cpu, load, notes };
  } finally {
    await teardown.run();
  }
}

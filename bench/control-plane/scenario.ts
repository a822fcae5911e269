import { join } from 'node:path';
/** One row of the table: fresh store, servers, location, agents and checks; a measured window; all removed after. */
import { quantile } from '../support.js';
import { type Agents, startAgents } from './agents.js';
import { CpuLimit } from './cpu-limit.js';
import { type CpuFigures, CpuMeter } from './meter.js';
import { type BenchOptions, type Scenario, SLOT_MS, warmupFor } from './options.js';
import { pairArrivals, readSessions, type SessionRow, type WindowFigures, windowFigures } from './outcome.js';
import { loadAverage } from './proc.js';
import { inspectorUrl, type ProfileSummary, WindowProfiler } from './profile.js';
import { startServers } from './servers.js';
import { agentsConnected, apiOf, createChecks, createLocation, queuedRuns, scheduleFields } from './setup.js';
import { createStore } from './store.js';
import { type ArrivalTarget, startArrivalTarget } from './target.js';
import { stopProcess, Teardown } from './teardown.js';

export interface Row {
  scenario: Scenario;
  windowS: number;
  /** Absent for the idle control plane. */
  runs: (WindowFigures & { lagP50Ms: number; lagP99Ms: number }) | null;
  cpu: CpuFigures;
  load: string;
  notes: string[];
  /** With --cpu-profile: where each server's (and the real agent's) CPU went in the window. */
  profiles: { label: string; summary: ProfileSummary }[];
}

interface Window {
  startMs: number;
  endMs: number;
  deadlineMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** The idle row's agents get this long to answer the run each check made when created. */
const IDLE_DRAIN_MS = 20 * 60_000;

export async function runScenario(scenario: Scenario, options: BenchOptions): Promise<Row> {
  const { mode, checks } = scenario;
  const say = (what: string) =>
    console.log(`  [${scenario.store} N=${checks} ${mode} ${replicasLabel(scenario)}] ${clock()} ${what}`);
  const teardown = new Teardown();
  try {
    const store = await createStore(scenario.store);
    teardown.add('remove the store', () => store.remove());
    say('starting the control plane');
    const { servers, key } = await startServers(store, scenario.replicas, options, teardown);
    const api = apiOf(servers[0]?.port ?? 0, key);
    const location = await createLocation(api);
    const target = mode === 'real' ? await startArrivalTarget() : null;
    if (target) teardown.add('close the target', () => target.close());

    const where = { servers, key: location.key, accountId: key.accountId, dataDir: store.dir };
    const agents = await startAgents(mode, where, options, teardown);
    await agentsConnected(api, location.id, agents.process ? 1 : agents.simulated.length).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${agents.process?.stdout ?? ''}${agents.process?.stderr ?? ''}`);
      },
    );
    say(`agents connected; creating ${checks} checks`);
    const ids = await createChecks(
      api,
      checks,
      scheduleFields(mode === 'idle'),
      (index) => target?.url(index) ?? `http://127.0.0.1:9/?c=${index}`,
      (made) => say(`${made} checks`),
    );
    const limits = limitReplicas(scenario, servers, teardown);

    const notes: string[] = [];
    const window =
      mode === 'idle'
        ? await idleWindow(agents, servers[0]?.url ?? '', options, say, notes)
        : busyWindow(options, scenario);
    await sleep(window.startMs - Date.now());
    say(`window of ${options.windowS} s`);
    const profiled = options.cpuProfile
      ? [
          ...servers.map((s, i) => ({ label: `server ${i + 1}`, stderr: s.process.stderr })),
          ...(agents.process ? [{ label: 'agent', stderr: agents.process.stderr }] : []),
        ]
      : [];
    const profilers = await Promise.all(
      profiled.map(async (p) => ({
        label: p.label,
        profiler: await WindowProfiler.attach(inspectorUrl(p.stderr) ?? ''),
      })),
    );
    for (const { profiler } of profilers) await profiler.start();
    const throttledAtStart = limits.map((limit) => limit.throttledPeriods());
    const meter = await CpuMeter.begin({
      serverPids: servers.map((s) => s.process.pid),
      agentPid: agents.process?.pid ?? null,
      backendPids: () => store.backendPids(),
    });
    await sleep(window.endMs - Date.now());
    const cpu = await meter.end();
    const throttled = limits.map((limit, i) => limit.throttledPeriods() - (throttledAtStart[i] ?? 0));
    const profiles = await Promise.all(
      profilers.map(async ({ label, profiler }) => ({
        label,
        summary: await profiler.stop(profileFile(options, scenario, label)),
      })),
    );
    const load = loadAverage();
    if (limits.length > 0) {
      const shares = throttled.map((n) => `${(100 * CpuLimit.throttledShare(n, cpu.seconds)).toFixed(0)} %`);
      notes.push(
        `each replica limited to ${scenario.replicaCpu} core: throttled in ${shares.join(', ')} of the window's 100-ms periods`,
      );
    }
    await sleep(window.deadlineMs - Date.now());

    notes.push(...(await agents.stop()));
    for (const server of servers) await stopProcess(server.process);
    if (mode === 'idle') return { scenario, windowS: cpu.seconds, runs: null, cpu, load, notes, profiles };

    say('reading the store');
    const db = await store.open();
    const sessions = await readSessions(db).finally(() => db.close());
    const arrivedAt = target ? arrivals(sessions, target, ids, notes) : deliveries(agents);
    const figures = windowFigures(sessions, arrivedAt, checks, window);
    const early = figures.lagsMs.filter((lag) => lag < 0).length;
    if (early > 0) notes.push(`${early} runs arrived before their slot began: their pairing is wrong`);
    const runs = {
      ...figures,
      lagP50Ms: quantile(figures.lagsMs, 0.5),
      lagP99Ms: quantile(figures.lagsMs, 0.99),
    };
    return { scenario, windowS: cpu.seconds, runs, cpu, load, notes, profiles };
  } finally {
    await teardown.run();
  }
}

const clock = () => new Date().toISOString().slice(11, 19);

/** "×2", or "×2 at 0.1 core" for replicas under a CPU limit. */
export const replicasLabel = (s: Scenario) =>
  `×${s.replicas}${s.replicaCpu === null ? '' : ` at ${s.replicaCpu} core`}`;

/** With --replica-cpu, each server under its limit from now on (creating the checks went at full speed). */
function limitReplicas(scenario: Scenario, servers: { process: { pid: number } }[], teardown: Teardown) {
  const { replicaCpu } = scenario;
  if (replicaCpu === null) return [];
  return servers.map((server, i) => {
    const limit = CpuLimit.apply(server.process.pid, replicaCpu, `replica-${i + 1}`);
    teardown.add(`lift replica ${i + 1}'s CPU limit`, () => limit.remove());
    return limit;
  });
}

/** Where a process's whole profile of the window is kept, if anywhere (--profile-dir). */
function profileFile(options: BenchOptions, scenario: Scenario, label: string): string | undefined {
  if (options.profileDir === null) return undefined;
  const name = `${scenario.store}-${scenario.checks}-${scenario.mode}-${label.replaceAll(' ', '-')}.cpuprofile`;
  return join(options.profileDir, name);
}

/** After the warm-up, from a slot boundary, whole slots; runs of its slots may arrive until the drain ends. */
function busyWindow(options: BenchOptions, scenario: Scenario): Window {
  const startMs = Math.ceil((Date.now() + warmupFor(options, scenario) * 1000) / SLOT_MS) * SLOT_MS;
  const endMs = startMs + options.windowS * 1000;
  return { startMs, endMs, deadlineMs: endMs + options.drainS * 1000 };
}

/**
 * Once the first run each check made when created is gone from the queue (answered, or expired when the control
 * plane could not hand it out within 6 minutes) and the agents left, and 10 s passed.
 */
async function idleWindow(
  agents: Agents,
  serverUrl: string,
  options: BenchOptions,
  say: (what: string) => void,
  notes: string[],
): Promise<Window> {
  const end = Date.now() + IDLE_DRAIN_MS;
  let queued: number;
  // The scheduler makes a new check's first run within its next tick, a second after it is created.
  for (;;) {
    await sleep(10_000);
    queued = await queuedRuns(serverUrl);
    if ((queued === 0 && agents.inFlight() === 0) || Date.now() > end) break;
    say(`${queued} first runs queued, ${agents.answered()} answered`);
  }
  if (queued > 0) notes.push(`${queued} first runs were still queued`);
  notes.push(...(await agents.stop()));
  const startMs = Date.now() + 10_000;
  const endMs = startMs + options.windowS * 1000;
  return { startMs, endMs, deadlineMs: endMs };
}

/** When each session's request reached the target (real agent). */
function arrivals(sessions: SessionRow[], target: ArrivalTarget, ids: string[], notes: string[]) {
  const byCheck = new Map([...target.arrivals].map(([index, times]) => [ids[index] ?? '', times] as const));
  const paired = pairArrivals(sessions, byCheck);
  if (paired.unmatched > 0) notes.push(`${paired.unmatched} arrivals matched no session`);
  const twice = sessions.filter((s) => s.leases > 1).length;
  if (twice > 0)
    notes.push(`${twice} runs were handed out more than once (lost leases): lags are approximate`);
  return paired.arrivedAt;
}

/** When each session's run reached a simulated agent. */
function deliveries(agents: Agents): Map<string, number> {
  const at = new Map<string, number>();
  for (const one of agents.simulated) for (const [id, when] of one.received) at.set(id, when);
  return at;
}

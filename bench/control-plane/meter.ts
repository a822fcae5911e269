/** CPU over a window, by who used it: the servers, their PostgreSQL backends, the agent, this bench, the machine. */
import { cpuSeconds, machineCpu, rssMiB } from './proc.js';

export interface Watched {
  serverPids: number[];
  agentPid: number | null;
  /** The store's backends serving the servers now (PostgreSQL). */
  backendPids(): Promise<number[]>;
}

interface Snapshot {
  at: number;
  servers: number[];
  backends: Map<number, number>;
  agent: number;
  bench: number;
  machine: { busy: number; total: number };
}

/** Percent of one core used over the window, and the servers' resident memory at its end. */
export interface CpuFigures {
  seconds: number;
  /** Per server replica. */
  serverPct: number[];
  serverRssMiB: number[];
  /** PostgreSQL backends of the bench's database (PGlite runs inside the server). */
  dbPct: number;
  agentPct: number | null;
  benchPct: number;
  /** Busy share of all the machine's cores (other work on the machine included). */
  machinePct: number;
  /** CPU seconds of servers and backends: the control plane's own work. */
  controlPlaneS: number;
}

async function snapshot(watched: Watched): Promise<Snapshot> {
  const usage = process.cpuUsage();
  const pids = await watched.backendPids();
  return {
    at: Date.now(),
    servers: watched.serverPids.map(cpuSeconds),
    backends: new Map(pids.map((pid) => [pid, cpuSeconds(pid)])),
    agent: watched.agentPid === null ? 0 : cpuSeconds(watched.agentPid),
    bench: (usage.user + usage.system) / 1e6,
    machine: machineCpu(),
  };
}

export class CpuMeter {
  private constructor(
    private readonly watched: Watched,
    private readonly start: Snapshot,
  ) {}

  static async begin(watched: Watched): Promise<CpuMeter> {
    return new CpuMeter(watched, await snapshot(watched));
  }

  async end(): Promise<CpuFigures> {
    const end = await snapshot(this.watched);
    const seconds = (end.at - this.start.at) / 1000;
    const pct = (cpu: number) => (100 * cpu) / seconds;
    const servers = end.servers.map((cpu, i) => cpu - (this.start.servers[i] ?? 0));
    // A backend that started within the window counts from zero; one that ended within it is not seen.
    let db = 0;
    for (const [pid, cpu] of end.backends) db += cpu - (this.start.backends.get(pid) ?? 0);
    const machineTotal = end.machine.total - this.start.machine.total;
    return {
      seconds,
      serverPct: servers.map(pct),
      serverRssMiB: this.watched.serverPids.map(rssMiB),
      dbPct: pct(db),
      agentPct: this.watched.agentPid === null ? null : pct(end.agent - this.start.agent),
      benchPct: pct(end.bench - this.start.bench),
      machinePct: machineTotal > 0 ? (100 * (end.machine.busy - this.start.machine.busy)) / machineTotal : 0,
      controlPlaneS: servers.reduce((a, b) => a + b, 0) + db,
    };
  }
}

/** The markdown tables of the rows (the issue's columns, then where the CPU went) and the goals of issue 14. */
import { cpus } from 'node:os';
import { SLOT_MS } from './options.js';
import { type Row, replicasLabel } from './scenario.js';

const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
const pct = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} %`;
const STORE_NAMES = { pglite: 'PGlite', postgres: 'PostgreSQL' } as const;

/** Results stored per second within the window. */
export const storedPerS = (row: Row) => (row.runs ? row.runs.stored / row.windowS : 0);
const duePerS = (row: Row) => (row.scenario.mode === 'idle' ? 0 : (row.scenario.checks * 1000) / SLOT_MS);
const doneShare = (row: Row) => (row.runs && row.runs.due > 0 ? row.runs.done / row.runs.due : 0);
/** The control plane's CPU (servers and their PostgreSQL backends) per result it stored, in ms. */
const cpuMsPerRun = (row: Row) =>
  row.runs?.stored ? (row.cpu.controlPlaneS * 1000) / row.runs.stored : Number.NaN;

/** The real agent's CPU (all its threads) per result stored, in ms: issue 17's agent cost per run. */
const agentMsPerRun = (row: Row) =>
  row.cpu.agentPct !== null && row.runs?.stored
    ? ((row.cpu.agentPct / 100) * row.windowS * 1000) / row.runs.stored
    : Number.NaN;

export function resultTable(rows: readonly Row[]): string {
  const lines = [
    '| store | N | agent | replicas | runs/s due | runs done of due | lag p50 / p99 (arrival minus slot start) | results stored/s (per replica) | server CPU | server RSS | PostgreSQL CPU | agent CPU | control-plane CPU per run |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { scenario: s, runs, cpu } = row;
    const stored = storedPerS(row);
    const cells = [
      STORE_NAMES[s.store],
      s.checks.toLocaleString('en'),
      s.mode,
      replicasLabel(s),
      runs ? duePerS(row).toFixed(0) : '—',
      runs ? `${(100 * doneShare(row)).toFixed(1)} %` : '—',
      runs ? `${seconds(runs.lagP50Ms)} / ${seconds(runs.lagP99Ms)}` : '—',
      runs ? `${stored.toFixed(0)} (${(stored / s.replicas).toFixed(0)})` : '—',
      cpu.serverPct.map(pct).join(' + '),
      `${cpu.serverRssMiB.map((m) => m.toFixed(0)).join(' + ')} MiB`,
      s.store === 'postgres' ? pct(cpu.dbPct) : 'in server',
      cpu.agentPct === null ? '—' : pct(cpu.agentPct),
      runs ? `${cpuMsPerRun(row).toFixed(2)} ms` : '—',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function cpuTable(rows: readonly Row[]): string {
  const lines = [
    `| store | N | agent | replicas | servers | PostgreSQL backends | agent | agent CPU per run | bench (target, simulated agents) | machine busy (${cpus().length} cores) | load average at the window's end |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { scenario: s, cpu, load } = row;
    const servers = cpu.serverPct.reduce((a, b) => a + b, 0);
    const agentMs = agentMsPerRun(row);
    lines.push(
      `| ${STORE_NAMES[s.store]} | ${s.checks.toLocaleString('en')} | ${s.mode} | ${replicasLabel(s)} | ${pct(servers)} | ${s.store === 'postgres' ? pct(cpu.dbPct) : 'in server'} | ${cpu.agentPct === null ? '—' : pct(cpu.agentPct)} | ${Number.isFinite(agentMs) ? `${agentMs.toFixed(2)} ms` : '—'} | ${pct(cpu.benchPct)} | ${pct(cpu.machinePct)} | ${load} |`,
    );
  }
  return lines.join('\n');
}

export interface Goal {
  what: string;
  /** null: the row cannot show it (the offered load is below the goal). */
  met: boolean | null;
}

const label = (row: Row) =>
  `${STORE_NAMES[row.scenario.store]} N=${row.scenario.checks} ${row.scenario.mode} ${replicasLabel(row.scenario)}`;

/** The targets of issue 14 (and issue 17's agent cost per run), for the rows that can show them. */
export function goals(rows: readonly Row[]): Goal[] {
  const list: Goal[] = [];
  for (const row of rows) {
    const { runs, scenario } = row;
    if (scenario.mode === 'idle') {
      const cpu = row.cpu.serverPct.reduce((a, b) => a + b, 0) + row.cpu.dbPct;
      list.push({ what: `${label(row)}: idle CPU ${pct(cpu)} < 5 %`, met: cpu < 5 });
      continue;
    }
    if (!runs) continue;
    if (scenario.mode === 'real') {
      const share = doneShare(row);
      list.push({
        what: `${label(row)}: ${(100 * share).toFixed(1)} % of due runs done ≥ 99 %, lag p99 ${seconds(runs.lagP99Ms)} < 1 s`,
        met: share >= 0.99 && runs.lagP99Ms < 1000,
      });
      const agentMs = agentMsPerRun(row);
      if (Number.isFinite(agentMs)) {
        list.push({
          what: `${label(row)}: agent CPU ${agentMs.toFixed(2)} ms per run ≤ 1 ms (issue 17)`,
          met: agentMs <= 1,
        });
      }
    } else if (scenario.replicaCpu === null) {
      const perReplica = storedPerS(row) / scenario.replicas;
      const offered = duePerS(row) / scenario.replicas;
      list.push({
        what: `${label(row)}: ${perReplica.toFixed(0)} results/s per replica ≥ 1000${offered <= 1000 ? ` (only ${offered.toFixed(0)} runs/s due per replica)` : ''}`,
        // At or below the goal's load, a replica that kept up with it is not judged: the load was the limit. (Two
        // replicas sharing 2,000 runs/s store just under 1,000 each, the window's edges cutting a few runs.)
        met: perReplica >= 1000 ? true : offered <= 1000 && doneShare(row) >= 0.99 ? null : false,
      });
    }
    const ms = cpuMsPerRun(row);
    list.push({ what: `${label(row)}: control-plane CPU ${ms.toFixed(2)} ms per run ≤ 1 ms`, met: ms <= 1 });
  }
  for (const two of rows.filter((r) => r.scenario.mode === 'simulated' && r.scenario.replicas === 2)) {
    const one = rows.find(
      (r) =>
        r.scenario.mode === 'simulated' &&
        r.scenario.replicas === 1 &&
        r.scenario.replicaCpu === two.scenario.replicaCpu &&
        r.scenario.store === two.scenario.store &&
        r.scenario.checks === two.scenario.checks,
    );
    if (!one) continue;
    const ratio = storedPerS(two) / storedPerS(one);
    // A row that kept up with its load stored what was due, not what it could: the ratio is then the load's.
    const keptUp = doneShare(one) >= 0.99 ? 'one replica' : doneShare(two) >= 0.99 ? 'two replicas' : null;
    list.push({
      what: `${label(two)}: two replicas store ${ratio.toFixed(2)}× what one does ≥ 1.7×${keptUp && ratio < 1.7 ? ` (not shown: ${keptUp} kept up with the load; raise --checks)` : ''}`,
      met: ratio >= 1.7 ? true : keptUp ? null : false,
    });
  }
  return list;
}

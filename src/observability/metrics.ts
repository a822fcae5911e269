import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SLOT_CLASSES, type SlotClass } from '../protocol/index.js';

/** Values the agent's gauges read when /metrics is scraped. */
export interface AgentGaugeSources {
  running(slotClass: SlotClass): number;
  queued(): number;
  freeSlots(slotClass: SlotClass): number;
  connected(): boolean;
  spooledResults(): number;
  spoolBytes(): number;
  /** When the oldest spooled result was written, or null when the spool is empty. */
  oldestSpooledAt(): Date | null;
}

export interface AgentMetrics {
  registry: Registry;
  runs: Counter<'kind' | 'status'>;
  runDuration: Histogram<'kind'>;
  reconnects: Counter;
  droppedResults: Counter;
  deliveredResults: Counter;
  /** Connects the gauges to the agent's state. */
  observe(sources: AgentGaugeSources): void;
}

/** The agent's metrics in a registry of its own (several agents can run in one process, as tests do). */
export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let sources: AgentGaugeSources | null = null;
  const registers = [registry];

  const perClass = (name: string, help: string, read: (s: AgentGaugeSources, c: SlotClass) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['slot_class'],
      registers,
      collect() {
        if (!sources) return;
        for (const slotClass of SLOT_CLASSES) this.set({ slot_class: slotClass }, read(sources, slotClass));
      },
    });
  const single = (name: string, help: string, read: (s: AgentGaugeSources) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (sources) this.set(read(sources));
      },
    });

  perClass('vantage_agent_running_runs', 'Runs executing now', (s, c) => s.running(c));
  perClass('vantage_agent_free_slots', 'Slots free for another run', (s, c) => s.freeSlots(c));
  single('vantage_agent_queued_runs', 'Runs received and not started yet', (s) => s.queued());
  single('vantage_agent_connected', '1 while connected to the control plane', (s) => (s.connected() ? 1 : 0));
  single('vantage_agent_spooled_results', 'Results written to the spool and not yet acknowledged', (s) =>
    s.spooledResults(),
  );
  single('vantage_agent_spool_bytes', 'Size of the result spool in bytes', (s) => s.spoolBytes());
  single('vantage_agent_spool_oldest_age_seconds', 'Age of the oldest spooled result (0 when empty)', (s) => {
    const oldest = s.oldestSpooledAt();
    return oldest ? (Date.now() - oldest.getTime()) / 1000 : 0;
  });

  return {
    registry,
    runs: new Counter({
      name: 'vantage_agent_runs_total',
      help: 'Runs finished, by check kind and status',
      labelNames: ['kind', 'status'],
      registers,
    }),
    runDuration: new Histogram({
      name: 'vantage_agent_run_duration_seconds',
      help: 'How long runs took, by check kind',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 240, 900, 3600],
      registers,
    }),
    reconnects: new Counter({
      name: 'vantage_agent_reconnects_total',
      help: 'Connections to the control plane opened after the first',
      registers,
    }),
    droppedResults: new Counter({
      name: 'vantage_agent_spool_dropped_results_total',
      help: 'Spooled results dropped because the spool was over AGENT_SPOOL_MAX_MB',
      registers,
    }),
    deliveredResults: new Counter({
      name: 'vantage_agent_results_delivered_total',
      help: 'Results acknowledged by the control plane',
      registers,
    }),
    observe(next) {
      sources = next;
    },
  };
}

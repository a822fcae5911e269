import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { SLOT_CLASSES, type SlotClass } from '../protocol/slots.js';
import type { AgentGaugeSources } from './metrics.js';

// prom-client's own files, not its index: the index also loads its push-gateway client, and its CPU metric loads
// @opentelemetry/api for exemplars; the agent uses neither (docs/performance.md, "Agent start-up and memory").
const require = createRequire(import.meta.url);
const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;
type Registry = PromClient.Registry;
type Counter<T extends string = string> = PromClient.Counter<T>;
type Histogram<T extends string = string> = PromClient.Histogram<T>;

/** prom-client's default metrics (collectDefaultMetrics) but its CPU one, in its order. */
const DEFAULT_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

/**
 * prom-client's process_cpu_* counters (its first default metrics), without exemplars; counted from the start of
 * the process, not from the first scrape that loaded them.
 */
function processCpuCounters(registers: Registry[]): void {
  let last = { user: 0, system: 0 };
  const user = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    // This one's collect sets all three, as prom-client's does.
    collect() {
      const now = process.cpuUsage();
      const userSeconds = (now.user - last.user) / 1e6;
      const systemSeconds = (now.system - last.system) / 1e6;
      last = now;
      user.inc(userSeconds);
      system.inc(systemSeconds);
      total.inc(userSeconds + systemSeconds);
    },
  });
  const system = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers,
  });
  const total = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
  });
}

/**
 * How often the event loop's delay is sampled for nodejs_eventloop_lag_* (prom-client's default: 10 ms), once the
 * agent is scraped. Each sample is a timer that wakes the process: at 10 ms, 100 wake-ups a second, which cost an
 * agent at 30 runs/s 0.05–0.1 ms of its 1.1 ms per run (docs/performance.md, "The agent at a low load"). At 100 ms
 * a stall of 100 ms or more is still measured whole; shorter ones in part.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** The process and Node.js metrics of prom-client's collectDefaultMetrics, in `registry`. */
function defaultMetrics(registry: Registry): void {
  processCpuCounters([registry]);
  const config = { register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS };
  for (const name of DEFAULT_METRICS) {
    (require(`prom-client/lib/metrics/${name}`) as (r: Registry, c: object) => void)(registry, config);
  }
}

/** The agent's prom-client metrics (metrics.ts loads this file when they are first needed). */
export interface PromMetrics {
  registry: Registry;
  runs: Counter<'kind' | 'status'>;
  runDuration: Histogram<'kind'>;
  reconnects: Counter;
  droppedResults: Counter;
  deliveredResults: Counter;
  /**
   * Adds prom-client's process and Node.js metrics to the registry, once: at the first scrape, not when the counters
   * load at the first run. Among them is the event loop's delay, sampled by a timer that wakes the process; an agent
   * nobody scrapes (the Helm chart's ServiceMonitor is off by default) does not pay for it.
   */
  addProcessMetrics(): void;
}

/** The agent's metrics in a registry of its own (several agents can run in one process, as tests do). */
export function createPromMetrics(observed: () => AgentGaugeSources | null): PromMetrics {
  const registry = new Registry();
  let processMetrics = false;
  const registers = [registry];

  const perClass = (name: string, help: string, read: (s: AgentGaugeSources, c: SlotClass) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['slot_class'],
      registers,
      collect() {
        const sources = observed();
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
        const sources = observed();
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
    addProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      defaultMetrics(registry);
    },
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
  };
}

import type { SlotClass } from '../protocol/slots.js';
import type { PromMetrics } from './prom-metrics.js';

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
  runFinished(kind: string, status: string, seconds: number): void;
  reconnected(): void;
  droppedResults(count: number): void;
  deliveredResult(): void;
  /** Connects the gauges to the agent's state. */
  observe(sources: AgentGaugeSources): void;
  /** The Prometheus text of every metric, with its content type. */
  scrape(): Promise<{ text: string; contentType: string }>;
}

/**
 * The agent's metrics (docs/agent.md, "Health and metrics"). prom-client and the registry (prom-metrics.ts) are
 * loaded at the first scrape or the first count, whichever comes first: an agent that waits for work and is not
 * scraped never loads them (docs/performance.md, "Agent start-up and memory"). Counts made while they load are
 * applied once they are loaded, in order. prom-client's process and Node.js metrics join at the first scrape.
 */
export function createAgentMetrics(): AgentMetrics {
  let sources: AgentGaugeSources | null = null;
  let loaded: PromMetrics | null = null;
  let loading: Promise<PromMetrics> | null = null;
  const pending: ((metrics: PromMetrics) => void)[] = [];

  const load = () => {
    loading ??= import('./prom-metrics.js').then(({ createPromMetrics }) => {
      const metrics = createPromMetrics(() => sources);
      for (const count of pending.splice(0)) count(metrics);
      loaded = metrics;
      return metrics;
    });
    return loading;
  };
  const count = (apply: (metrics: PromMetrics) => void) => {
    if (loaded) apply(loaded);
    else {
      pending.push(apply);
      void load();
    }
  };

  return {
    runFinished(kind, status, seconds) {
      count((m) => {
        m.runs.inc({ kind, status });
        m.runDuration.observe({ kind }, seconds);
      });
    },
    reconnected: () => count((m) => m.reconnects.inc()),
    droppedResults: (n) => count((m) => m.droppedResults.inc(n)),
    deliveredResult: () => count((m) => m.deliveredResults.inc()),
    observe(next) {
      sources = next;
    },
    async scrape() {
      const { registry, addProcessMetrics } = await load();
      addProcessMetrics();
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

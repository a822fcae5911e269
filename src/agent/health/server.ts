import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentMetrics } from '../../observability/metrics.js';

// Not `import … from 'node:http'`: an ES import of node:http loads Node's own copy of undici (≈ 0.1 s and 13 MB on
// Node.js 24) for its WebSocket getters, which the agent never uses.
const { createServer } = process.getBuiltinModule('node:http');

/** What /health reports. */
export interface HealthReport {
  status: 'starting' | 'ok' | 'disconnected' | 'stopping';
  version: string;
  location: string;
  connected: boolean;
  running: number;
  queued: number;
  /** Worker threads running URL, API, TCP and DNS runs (AGENT_THREADS; none before the first run, nor before `auto` finds the main thread busy). */
  threads: number;
  spooled: number;
  /** Why results cannot be written to the spool on disk (ENOSPC, EROFS, …), or null. Not ready while set. */
  spoolError: string | null;
  uptimeSeconds: number;
}

export interface HealthSources {
  /** Ready: started, connected at least once, results reach the disk, and not shutting down. */
  ready(): boolean;
  report(): HealthReport;
  metrics: Pick<AgentMetrics, 'scrape'>;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The probes on AGENT_HEALTH_PORT: /-/readiness (200 or 503), /-/liveness (answered while the event loop
 * turns), /health (JSON) and /metrics (Prometheus text).
 */
export async function startHealthServer(port: number, sources: HealthSources): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const text = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    switch (path) {
      case '/-/readiness':
        return sources.ready() ? text(200, 'ready\n') : text(503, 'not ready\n');
      case '/-/liveness':
        return text(200, 'alive\n');
      case '/health':
        return text(200, JSON.stringify(sources.report()), 'application/json');
      case '/metrics':
        sources.metrics.scrape().then(
          (scraped) => text(200, scraped.text, scraped.contentType),
          () => text(500, 'metrics could not be collected\n'),
        );
        return;
      default:
        return text(404, 'not found\n');
    }
  });
  server.keepAliveTimeout = 5000;
  server.listen(port);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      throw new Error(`AGENT_HEALTH_PORT: cannot listen on port ${port}: ${(error as Error).message}`);
    }),
  ]);
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

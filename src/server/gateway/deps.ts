import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../queue/clock.js';
import type { RunEvents } from '../queue/events.js';
import type { Db } from '../store/db.js';

/** Timings of the gateway; tests shorten them. */
export interface GatewaySettings {
  leaseTtlMs: number;
  heartbeatIntervalMs: number;
  /** How often a connection with credit looks for runs enqueued on other replicas. */
  dispatchPollMs: number;
  /** How long a new connection may take to say hello. */
  helloTimeoutMs: number;
  /** WebSocket pings; a connection that missed a pong by the next ping is dropped. */
  pingIntervalMs: number;
}

export interface GatewayDeps {
  db: Db;
  clock: Clock;
  events: RunEvents;
  log: FastifyBaseLogger;
  settings: GatewaySettings;
  /** The control plane's address for agents (bundle URLs in run messages). */
  publicUrl: string;
}

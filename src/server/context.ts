import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config.js';
import type { RunServices } from './scheduler/run-services.js';
import type { Db } from './store/db.js';

/** What route modules and background services of the control plane share. */
export interface ServerContext {
  db: Db;
  config: ServerConfig;
  log: FastifyBaseLogger;
  version: string;
  /** The scheduler, queue sweeps, agent gateway and alert delivery of this server. */
  runs: RunServices;
}

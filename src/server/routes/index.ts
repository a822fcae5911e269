import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { registerLocationRoutes } from './locations.js';

/** Every route module of the public API and the agent gateway. */
export function registerRoutes(app: FastifyInstance, _context: ServerContext): void {
  registerLocationRoutes(app);
}

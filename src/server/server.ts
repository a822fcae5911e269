import { mkdir } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Bootstrap, bootstrapAccount } from './auth/bootstrap.js';
import type { ServerConfig } from './config.js';
import type { ServerContext } from './context.js';
import { createApp } from './http/app.js';
import { registerRoutes } from './routes/index.js';
import { attachRunServices, type RunServiceOptions, type RunServices } from './scheduler/run-services.js';
import { openDb } from './store/db.js';
import { migrate } from './store/migrate.js';

export interface RunningServer {
  app: FastifyInstance;
  context: ServerContext;
  bootstrap: Bootstrap;
  /** The scheduler, queue sweeps, metrics sampler and agent gateway of this server. */
  runs: RunServices;
  /** The base URL it listens on. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  config: ServerConfig;
  version: string;
  logger?: FastifyBaseLogger;
  rateLimit?: { max: number; windowMs: number };
  /** Clock and timings of the run machinery (tests); the defaults suit production. */
  runs?: RunServiceOptions;
}

/** Opens the store, migrates it, makes the first account if needed, and serves the API. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  if (!config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
  });
  await migrate(db);
  const bootstrap = await bootstrapAccount(db, config.bootstrapKey);
  const app = await createApp({
    db,
    version: options.version,
    publicUrl: config.publicUrl,
    logger: options.logger ?? false,
    rateLimit: options.rateLimit,
  });
  const context: ServerContext = { db, config, log: app.log, version: options.version };
  const runs = attachRunServices(context, options.runs);
  registerRoutes(app, context);
  const address = await app.listen({ port: config.port, host: config.host });
  runs.start(app.server);
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  return {
    app,
    context,
    bootstrap,
    runs,
    url,
    async close() {
      await runs.stop();
      // A request still running when the close begins leaves its connection open as keep-alive afterwards, and
      // app.close() would wait for the client to hang up (agents keep connections for minutes): close each such
      // connection as soon as its answer is out.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await db.close();
    },
  };
}

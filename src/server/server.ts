import { mkdir } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Bootstrap, bootstrapAccount } from './auth/bootstrap.js';
import type { ServerConfig } from './config.js';
import type { ServerContext } from './context.js';
import { createApp } from './http/app.js';
import { registerRoutes } from './routes/index.js';
import { openDb } from './store/db.js';
import { migrate } from './store/migrate.js';

export interface RunningServer {
  app: FastifyInstance;
  context: ServerContext;
  bootstrap: Bootstrap;
  /** The base URL it listens on. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  config: ServerConfig;
  version: string;
  logger?: FastifyBaseLogger;
  rateLimit?: { max: number; windowMs: number };
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
  registerRoutes(app, context);
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  return {
    app,
    context,
    bootstrap,
    url,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

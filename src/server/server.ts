import { mkdir } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Bootstrap, bootstrapAccount } from './auth/bootstrap.js';
import type { ServerConfig } from './config.js';
import type { ServerContext } from './context.js';
import { createApp } from './http/app.js';
import type { ResponseCheck } from './http/route.js';
import { registerRoutes } from './routes/index.js';
import { createRunServices, type RunServiceOptions, type RunServices } from './scheduler/run-services.js';
import { lockDataDir, StartError } from './store/data-dir-lock.js';
import { openDb } from './store/db.js';
import { migrate } from './store/migrate.js';
import { type ListedFolders, makeOwnerOnly } from './store/owner-only.js';

export { StartError };

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
  failedAuthLimit?: { max: number; windowMs: number };
  /** `strict` (tests): an answer that does not match the OpenAPI document fails; by default it is logged. */
  responseCheck?: ResponseCheck;
  /** Clock and timings of the run machinery (tests); the defaults suit production. */
  runs?: RunServiceOptions;
}

/** How often the data folder is made owner-only again: PGlite creates new files (WAL segments) 0666. */
const OWNER_ONLY_SWEEP_MS = 60_000;

/** Listens, or throws a StartError that names PORT when the port is taken. */
async function listen(app: FastifyInstance, config: ServerConfig): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new StartError(
        `cannot listen on ${config.host}:${config.port} (${code}): set PORT (or HOST) to a free port of this machine`,
      );
    }
    throw error;
  }
}

/**
 * Opens the store, migrates it, serves the API, and makes the first account if needed — only once it listens, so a
 * start that fails (a port in use) creates nothing whose key would never be shown. The data folder is the owner's
 * only; the embedded store's is locked to this process.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const lock = config.databaseUrl ? null : await lockDataDir(config.dataDir);
  const cleanups: (() => Promise<void>)[] = [async () => lock?.release()];
  // Each sweep of the data folder after the first looks only at the folders that changed since.
  const listed: ListedFolders = new Map();
  const cleanUp = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  };
  try {
    await makeOwnerOnly(config.dataDir, listed);
    const db = await openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : config.dataDir,
      pgliteCacheMb: config.pgliteCacheMb,
    });
    cleanups.push(async () => {
      await db.close();
      await makeOwnerOnly(config.dataDir, listed);
    });
    await migrate(db);
    await makeOwnerOnly(config.dataDir, listed);
    const app = await createApp({
      db,
      version: options.version,
      publicUrl: config.publicUrl,
      logger: options.logger ?? false,
      rateLimit: options.rateLimit ?? { max: config.apiRateLimit ?? 600, windowMs: 60_000 },
      failedAuthLimit: options.failedAuthLimit,
      trustProxy: config.trustProxy,
      responseCheck: options.responseCheck,
      clock: options.runs?.clock,
    });
    cleanups.push(() => app.close());
    const runs = createRunServices({ db, config, log: app.log }, options.runs);
    const context: ServerContext = { db, config, log: app.log, version: options.version, runs };
    registerRoutes(app, context);
    const address = await listen(app, config);
    const bootstrap = await bootstrapAccount(db, config.bootstrapKey);
    // At every start, so automation that set VANTAGE_BOOTSTRAP_KEY can learn its account from the log.
    app.log.info(
      { accountId: bootstrap.accountId },
      `account ${bootstrap.accountId} (send it as x-service-account, or call GET /v1/accounts with the key alone)`,
    );
    runs.start(app);
    const sweep = setInterval(() => void makeOwnerOnly(config.dataDir, listed), OWNER_ONLY_SWEEP_MS).unref();
    const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
    return running({ app, context, bootstrap, runs, url, sweep, release: cleanUp });
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

function running(parts: {
  app: FastifyInstance;
  context: ServerContext;
  bootstrap: Bootstrap;
  runs: RunServices;
  url: string;
  sweep: NodeJS.Timeout;
  release: () => Promise<void>;
}): RunningServer {
  const { app, context, bootstrap, runs, url, sweep } = parts;
  return {
    app,
    context,
    bootstrap,
    runs,
    url,
    async close() {
      clearInterval(sweep);
      await runs.stop();
      // A request still running when the close begins leaves its connection open as keep-alive afterwards, and
      // app.close() would wait for the client to hang up (agents keep connections for minutes): close each such
      // connection as soon as its answer is out.
      const closing = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(closing);
      }
      // Closes the store, makes its folder owner-only once more and gives up the lock.
      await parts.release();
    },
  };
}

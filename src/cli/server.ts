import { problemLines } from '../config/env.js';
import { createLogger } from '../observability/logger.js';
import { SecretValues } from '../observability/secret-values.js';
import { loadServerConfig } from '../server/config.js';
import { version } from '../version.js';
import { startServerOrSay } from './start-server.js';
import { growHeapForServing, leaveStartUpMode } from './start-up-mode.js';

/**
 * `vantage server`: the control plane, configured by the environment (a bad setting: one line each, exit 2); stops
 * cleanly on SIGTERM/SIGINT.
 */
export async function serverCommand(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const loaded = loadServerConfig(env);
  if (!loaded.ok) {
    process.stderr.write(problemLines(loaded.problems));
    return 2;
  }
  const { config } = loaded;
  const secrets = new SecretValues(config.bootstrapKey ? [config.bootstrapKey] : []);
  const log = createLogger({ level: config.logLevel, secrets, base: { service: 'vantage-server', version } });
  const server = await startServerOrSay('vantage server', { config, version, logger: log });
  if (!server) return 2;
  leaveStartUpMode();
  growHeapForServing();
  const store = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  process.stdout.write(
    `Vantage control plane ${version} listening on ${server.url} (store: ${store}); web app at ${server.url}/\n`,
  );
  if (server.bootstrap.apiKey && !config.bootstrapKey) {
    // Printed once, on the first start: the key is stored hashed and cannot be shown again.
    process.stdout.write(
      `\nCreated account ${server.bootstrap.accountId} and its admin API key (shown only now):\n` +
        `  x-service-account: ${server.bootstrap.accountId}\n  Authorization: Bearer ${server.bootstrap.apiKey}\n\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  log.info('shutting down');
  await server.close();
  return 0;
}

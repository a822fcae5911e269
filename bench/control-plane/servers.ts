/** The control plane of a row: `replicas` built `vantage server` processes on the row's store. */
import { freePort, ServerProcess } from '../../test/support/server-process.js';
import type { BenchOptions } from './options.js';
import type { ApiKey } from './setup.js';
import type { BenchStore } from './store.js';
import { stopProcess, type Teardown } from './teardown.js';

export interface Replica {
  process: ServerProcess;
  port: number;
  url: string;
}

/** Starts the replicas one after another (the first migrates the store and makes the account and its key). */
export async function startServers(
  store: BenchStore,
  replicas: number,
  options: Pick<BenchOptions, 'logLevel' | 'cpuProfile' | 'serverNodeFlags'>,
  teardown: Teardown,
): Promise<{ servers: Replica[]; key: ApiKey }> {
  const servers: Replica[] = [];
  for (let replica = 1; replica <= replicas; replica++) {
    const port = await freePort();
    const env = {
      PORT: String(port),
      LOG_LEVEL: options.logLevel,
      // The API's limit per key would make creating thousands of checks take many minutes.
      API_RATE_LIMIT: '1000000',
      ...store.serverEnv(replica),
      // The window's CPU profile is taken through the inspector (bench/control-plane/profile.ts).
      ...(options.cpuProfile ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
    };
    const server = new ServerProcess(env, { built: true, nodeFlags: options.serverNodeFlags });
    teardown.child(server);
    teardown.add(`stop server ${replica}`, () => stopProcess(server));
    servers.push({ process: server, port, url: `http://127.0.0.1:${port}` });
    await server.listening();
  }
  const key = await servers[0]?.process.keyPrinted();
  if (!key) throw new Error('no server printed its key');
  return { servers, key };
}

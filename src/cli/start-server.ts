import { type RunningServer, StartError, type StartOptions, startServer } from '../server/server.js';

/** Starts the control plane, or says in one line why it cannot (a port in use, a store in use) and gives null. */
export async function startServerOrSay(
  command: string,
  options: StartOptions,
): Promise<RunningServer | null> {
  try {
    return await startServer(options);
  } catch (error) {
    if (!(error instanceof StartError)) throw error;
    process.stderr.write(`${command}: ${error.message}\n`);
    return null;
  }
}

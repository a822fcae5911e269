import type { ScriptSettings } from '../settings.js';
import { createRunFolder, handOver, type RunFolder, removeRunFolder } from './run-folder.js';
import { acquireRunUser, type RunUser } from './script-users.js';

/** What one run's scripts get: the user they run as and a folder of their own, taken and given back together. */
export interface RunSpace {
  folder: RunFolder;
  /** The user its scripts run as; null for the agent's own. */
  user: RunUser | null;
  /** Lets the user write in the folder (again, after the agent wrote more there): see handOver. */
  handOver(): Promise<void>;
  /** Removes the folder (keeping the artifacts when asked) and gives the user back. */
  close(keepArtifacts: boolean): Promise<void>;
}

/**
 * The user and folder of run `runId`; null when `signal` stopped the run while it waited for a user (every
 * uid of a per-run range taken).
 */
export async function openRunSpace(
  settings: Pick<ScriptSettings, 'scriptUsers' | 'workDir'>,
  runId: string,
  signal?: AbortSignal,
): Promise<RunSpace | null> {
  const user = await acquireRunUser(settings.scriptUsers, signal).catch(() => undefined);
  if (user === undefined) return null;
  let folder: RunFolder;
  try {
    folder = await createRunFolder(settings.workDir, runId, settings.scriptUsers);
  } catch (error) {
    user?.release();
    throw error;
  }
  return {
    folder,
    user,
    handOver: () => handOver(folder, user),
    close: async (keepArtifacts) => {
      try {
        await removeRunFolder(folder, keepArtifacts, user);
      } finally {
        user?.release();
      }
    },
  };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Check } from '../../checks/index.js';
import { AGENT_PATHS } from '../../protocol/version.js';
import type { ControlPlaneHttp } from './http-client.js';

/** Largest code bundle fetched (the control plane takes at most 150 MB). */
const MAX_BUNDLE_BYTES = 150 * 1024 * 1024;

/** The control plane's route for the bundle of a run this agent holds. */
const bundlePath = AGENT_PATHS.bundle;

export interface ResolvedCheck {
  check: Check;
  /** Removes the fetched bundle; call once the attempt is over. */
  dispose(): Promise<void>;
}

/**
 * Fetches the code bundle the control plane names for a PLAYWRIGHT run (a URL ending in the run's bundle route)
 * with this agent's credentials, into a private temporary folder, and gives the executor a check whose
 * `codeBundlePath` is that local file. The request goes to the configured control plane whatever host the URL
 * names, so the key never leaves for another host, nor enters the check or a log line. Other checks pass as
 * they are.
 */
export class BundleFetcher {
  constructor(private readonly http: ControlPlaneHttp) {}

  async resolve(check: Check, runId: string, signal: AbortSignal): Promise<ResolvedCheck> {
    if (check.checkType !== 'PLAYWRIGHT' || !isRunBundleUrl(check.codeBundlePath, runId)) {
      return { check, dispose: async () => {} };
    }
    const dir = await mkdtemp(join(tmpdir(), 'vantage-bundle-'));
    const dispose = () => rm(dir, { recursive: true, force: true });
    const file = join(dir, 'bundle.tar.gz');
    try {
      const status = await this.http.download(bundlePath(runId), file, MAX_BUNDLE_BYTES, signal);
      if (status < 200 || status >= 300) throw new Error(`the control plane answered ${status}`);
    } catch (error) {
      await dispose();
      throw new BundleFetchError((error as Error).message);
    }
    return { check: { ...check, codeBundlePath: file }, dispose };
  }
}

export class BundleFetchError extends Error {
  constructor(detail: string) {
    super(`the code bundle could not be fetched from the control plane: ${detail}`);
    this.name = 'BundleFetchError';
  }
}

function isRunBundleUrl(path: string, runId: string): boolean {
  if (!/^https?:\/\//i.test(path)) return false;
  try {
    return new URL(path).pathname === bundlePath(runId);
  } catch {
    return false;
  }
}

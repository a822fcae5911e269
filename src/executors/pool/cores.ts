import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Where Linux shows the control groups: mounted under `root`, this process's own in `self`. */
export interface CgroupFiles {
  root: string;
  self: string;
}

const LINUX: CgroupFiles = { root: '/sys/fs/cgroup', self: '/proc/self/cgroup' };

/**
 * The CPUs this process may use: those of its affinity (`os.availableParallelism()`), fewer under a CPU quota of
 * its control group (a container's CPU limit, which the affinity does not show), rounded up.
 */
export function usableCores(files: CgroupFiles = LINUX): number {
  const quota = cgroupQuotaCores(files);
  return Math.max(
    1,
    Math.min(availableParallelism(), quota === null ? Number.POSITIVE_INFINITY : Math.ceil(quota)),
  );
}

/** The CPU quota of this process's control group in CPUs (1.5 for 150 ms in every 100 ms), or null for none. */
export function cgroupQuotaCores(files: CgroupFiles = LINUX): number | null {
  let lines: string[];
  try {
    lines = readFileSync(files.self, 'utf8').split('\n');
  } catch {
    return null;
  }
  for (const line of lines) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers = '', path = ''] = match;
    // cgroup v2: one hierarchy, `0::/path`, the quota in cpu.max as "QUOTA PERIOD" or "max PERIOD".
    if (controllers === '') {
      const text = firstReadable([`${files.root}${path}/cpu.max`, `${files.root}/cpu.max`]);
      const [quota, period] = text?.trim().split(/\s+/) ?? [];
      if (quota !== undefined && quota !== 'max') return ratio(quota, period);
      continue;
    }
    // cgroup v1: the cpu controller's hierarchy, the quota in microseconds, -1 for none.
    if (!controllers.split(',').includes('cpu')) continue;
    // Inside a container the hierarchy's root is the container's own, whatever the path says.
    const dirs = [controllers, 'cpu'].flatMap((dir) => [
      `${files.root}/${dir}${path}`,
      `${files.root}/${dir}`,
    ]);
    for (const dir of dirs) {
      const quota = firstReadable([`${dir}/cpu.cfs_quota_us`])?.trim();
      if (quota === undefined) continue;
      if (Number(quota) <= 0) break;
      return ratio(quota, firstReadable([`${dir}/cpu.cfs_period_us`])?.trim());
    }
  }
  return null;
}

function ratio(quota: string, period: string | undefined): number | null {
  const value = Number(quota) / Number(period);
  return Number.isFinite(value) && value > 0 ? value : null;
}

function firstReadable(paths: string[]): string | undefined {
  for (const path of paths) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      // The next place, if any.
    }
  }
  return undefined;
}

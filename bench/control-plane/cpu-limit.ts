/**
 * A CPU limit per server replica (--replica-cpu), as an orchestrator sets one per pod: each replica's process goes
 * into a cgroup of its own whose CFS quota is that share of one core. On a machine of few cores this makes the
 * replica, not PostgreSQL or the machine, the first to saturate, so that two replicas can show what they add.
 * Needs root and the cgroup `cpu` controller (v1, at /sys/fs/cgroup/cpu, or v2 with `cpu` enabled).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const V1_ROOT = '/sys/fs/cgroup/cpu';
const V2_ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

function hierarchy(): { root: string; version: 1 | 2 } {
  if (existsSync(join(V1_ROOT, 'cpu.cfs_quota_us'))) return { root: V1_ROOT, version: 1 };
  const controllers = join(V2_ROOT, 'cgroup.subtree_control');
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) {
    return { root: V2_ROOT, version: 2 };
  }
  throw new Error(
    '--replica-cpu: no cgroup cpu controller here (needs /sys/fs/cgroup/cpu, or cgroup v2 with cpu)',
  );
}

/** Limits a process (and the threads and children it has or will have) to `cores` of CPU; undone by `remove`. */
export class CpuLimit {
  private constructor(private readonly dir: string) {}

  static apply(pid: number, cores: number, name: string): CpuLimit {
    const { root, version } = hierarchy();
    const dir = join(root, `vantage-bench-${process.pid}-${name}`);
    mkdirSync(dir, { recursive: true });
    const quota = Math.max(1000, Math.round(cores * PERIOD_US));
    if (version === 1) {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    } else {
      writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    }
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    return new CpuLimit(dir);
  }

  /** The share (0–1) of `seconds`' periods in which `throttled` periods (a difference of throttledPeriods) fell. */
  static throttledShare(throttled: number, seconds: number): number {
    return throttled / ((seconds * 1_000_000) / PERIOD_US);
  }

  /** How often the quota stopped the process so far (v1 and v2 both count periods throttled). */
  throttledPeriods(): number {
    const stat = readFileSync(join(this.dir, 'cpu.stat'), 'utf8');
    return Number(/nr_throttled (\d+)/.exec(stat)?.[1] ?? 0);
  }

  /** Moves what is left of the process back to the root group, then removes the group. */
  remove(): void {
    const root = this.dir.slice(0, this.dir.lastIndexOf('/'));
    for (const pid of readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        writeFileSync(join(root, 'cgroup.procs'), pid);
      } catch {
        // The process ended meanwhile.
      }
    }
    rmdirSync(this.dir);
  }
}

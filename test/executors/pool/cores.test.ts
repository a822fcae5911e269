import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CgroupFiles, cgroupQuotaCores, usableCores } from '../../../src/executors/pool/cores.js';

let root = '';
afterEach(() => rm(root, { recursive: true, force: true }));

/** A /sys/fs/cgroup and a /proc/self/cgroup of the given files, in a temporary folder. */
async function cgroups(self: string, files: Record<string, string>): Promise<CgroupFiles> {
  root = await mkdtemp(join(tmpdir(), 'vantage-cgroup-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, 'fs', path)), { recursive: true });
    await writeFile(join(root, 'fs', path), text);
  }
  await writeFile(join(root, 'self'), self);
  return { root: join(root, 'fs'), self: join(root, 'self') };
}

describe('the CPUs a process may use', () => {
  it("reads a container's CPU limit from cgroup v2 (cpu.max), in its own group or at the root it sees", async () => {
    const own = await cgroups('0::/kubepods/pod1/c1\n', { 'kubepods/pod1/c1/cpu.max': '150000 100000\n' });
    expect(cgroupQuotaCores(own)).toBe(1.5);
    expect(usableCores(own)).toBe(Math.min(availableParallelism(), 2));
    const namespaced = await cgroups('0::/\n', { 'cpu.max': '50000 100000\n' });
    expect(usableCores(namespaced)).toBe(1);
    const unlimited = await cgroups('0::/\n', { 'cpu.max': 'max 100000\n' });
    expect(cgroupQuotaCores(unlimited)).toBeNull();
    expect(usableCores(unlimited)).toBe(availableParallelism());
  });

  it('reads it from cgroup v1 (cpu.cfs_quota_us over cpu.cfs_period_us), -1 meaning none', async () => {
    const limited = await cgroups('4:cpuset:/\n3:cpu,cpuacct:/docker/abc\n1:name=systemd:/\n', {
      'cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '100000\n',
      'cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupQuotaCores(limited)).toBe(1);
    const none = await cgroups('3:cpu:/\n', {
      'cpu/cpu.cfs_quota_us': '-1\n',
      'cpu/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupQuotaCores(none)).toBeNull();
  });

  it('falls back to the affinity where no control group can be read', async () => {
    const missing = await cgroups('garbage\n', {});
    expect(cgroupQuotaCores(missing)).toBeNull();
    expect(usableCores({ root: '/nonexistent', self: '/nonexistent/cgroup' })).toBe(availableParallelism());
  });
});

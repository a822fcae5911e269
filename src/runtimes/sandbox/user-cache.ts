import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunUser, runAs } from './script-users.js';

/**
 * A cache folder `name` under `cacheDir` that the run's scripts may write (npm's download cache, say), shared
 * by every run of the same user and owned by it: with a user per run, each uid has its own
 * (`<name>-users/<uid>`), so that no run can change what another reads. A non-root agent, which cannot give
 * a folder away, has the user make its own in a folder open to all (sticky, like /tmp).
 */
export async function userCacheFolder(cacheDir: string, name: string, user: RunUser | null): Promise<string> {
  if (!user?.exclusive) {
    const dir = join(cacheDir, name);
    await mkdir(dir, { recursive: true });
    if (user) await chown(dir, user.uid, user.gid);
    return dir;
  }
  const users = join(cacheDir, `${name}-users`);
  const dir = join(users, String(user.uid));
  await mkdir(users, { recursive: true });
  if (!user.via) {
    await mkdir(dir, { recursive: true });
    await chown(dir, user.uid, user.gid);
    return dir;
  }
  await chmod(users, 0o1777);
  await runAs(user, ['mkdir', '-p', dir]);
  return dir;
}

/**
 * A non-root agent as the container image runs it (scripts/image/): user 10001 with no capability but the
 * SETUID and SETGID that its switch program needs, and that program, a copy of setpriv only the agent's group
 * may run. Only a test running as root can set this up (setpriv, setcap).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export const AGENT_USER = 10001;

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/** Whether this machine can set up a non-root agent (root, setpriv and setcap). */
export const canRunNonRootAgent =
  process.getuid?.() === 0 &&
  SETPRIV !== undefined &&
  ['/usr/sbin/setcap', '/sbin/setcap'].some((path) => existsSync(path));

export interface NonRootAgent {
  /** Put before the command line that starts the agent or `vantage run`. */
  prefix: string[];
  /** Its environment besides the test's own. */
  env: Record<string, string>;
  /** Where its run folders go. */
  workDir: string;
}

/**
 * Makes the switch program and the agent's folders under `dir` (keep it short: Chromium's socket path lives
 * under the work folder). `switchable: false` starts the agent without SETUID and SETGID, as a container
 * that drops them does.
 */
export async function nonRootAgent(
  dir: string,
  options: { switchable: boolean; scriptUsers: { first: number; last: number } },
): Promise<NonRootAgent> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const userSwitch = join(dir, 'user-switch');
  execFileSync('install', ['-m', '0750', '-g', String(AGENT_USER), SETPRIV as string, userSwitch]);
  execFileSync('setcap', ['cap_setuid,cap_setgid=ep', userSwitch]);
  const home = join(dir, 'agent');
  await mkdir(home, { recursive: true });
  await chown(home, AGENT_USER, AGENT_USER);
  const drop = options.switchable ? [] : ['--bounding-set=-setuid,-setgid'];
  const { first, last } = options.scriptUsers;
  return {
    prefix: [
      SETPRIV as string,
      `--reuid=${AGENT_USER}`,
      `--regid=${AGENT_USER}`,
      '--clear-groups',
      '--inh-caps=-all',
      ...drop,
      '--',
    ],
    env: {
      VANTAGE_USER_SWITCH: userSwitch,
      VANTAGE_SCRIPT_USERS: `${first}-${last}`,
      VANTAGE_WORK_DIR: join(home, 'runs'),
      VANTAGE_CACHE_DIR: join(home, 'cache'),
    },
    workDir: join(home, 'runs'),
  };
}

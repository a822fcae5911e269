import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

/**
 * Who user scripts run as. A script must not read the agent's environment (its API_KEY), its files or its
 * memory, nor signal it: so scripts run as another user than the agent wherever the system allows it.
 */
export interface ScriptUser {
  uid: number;
  gid: number;
}

/** What the settings allow, see resolveScriptUsers. */
export type ScriptUsers =
  /** The agent's own user: scripts are not kept from the agent; `warning` says why, when it was not asked for. */
  | { mode: 'agent'; warning: string | null }
  /** One user for every run (VANTAGE_SCRIPT_USER=uid:gid, as root). */
  | { mode: 'shared'; user: ScriptUser }
  /**
   * A user of its own for each run, uid and gid alike, taken from FIRST–LAST while the run lasts; a non-root
   * agent switches to it through `via`, a copy of setpriv that may set uids and gids (and that only the agent's
   * group may run).
   */
  | { mode: 'per-run'; first: number; last: number; via: string | null };

/** The user one run's scripts run as. */
export interface RunUser extends ScriptUser {
  /** The program a non-root agent switches users through; null when the agent is root. */
  via: string | null;
  /** Every process of this uid belongs to this run (so processes are found and killed by uid). */
  exclusive: boolean;
  release(): void;
}

const DOCS = 'docs/browser-checks.md, "Script users"';

/**
 * The uids an agent running as root gives its runs when VANTAGE_SCRIPT_USERS is not set: a user of its own per run,
 * so no script reads another run's environment (/proc/PID/environ) or outlives its run, and never a user that the
 * system has (uids in /etc/passwd are skipped; nobody is shared with system daemons). Below 61184, where systemd's
 * DynamicUser= services take their uids.
 */
export const DEFAULT_ROOT_SCRIPT_USERS = { first: 60600, last: 60855 } as const;

/** The script-user settings as asked (VANTAGE_SCRIPT_USER, VANTAGE_SCRIPT_USERS, VANTAGE_USER_SWITCH), valid. */
export interface ScriptUsersAsked {
  /** `same` for the agent's own user, or the one user of every run. */
  user?: 'same' | ScriptUser;
  /** FIRST-LAST: a uid of its own for each run. */
  range?: { first: number; last: number };
  /** The program a non-root agent switches users through. */
  userSwitch?: string;
}

/**
 * The users scripts run as. As root: a range gives each run a user of its own, one user is one user for all, and
 * without either each run gets a uid of its own from DEFAULT_ROOT_SCRIPT_USERS. Not as root: a range with the switch
 * program (as the container image has them), when the switch works here; otherwise the agent's own user, with a
 * warning that says what is missing. `same` asks for the agent's own user.
 */
export function resolveScriptUsers(asked: ScriptUsersAsked): ScriptUsers {
  if (asked.user === 'same') return { mode: 'agent', warning: null };
  const { range } = asked;
  if (process.getuid?.() === 0) {
    if (range) return { mode: 'per-run', ...range, via: null };
    if (asked.user) return { mode: 'shared', user: asked.user };
    return { mode: 'per-run', ...DEFAULT_ROOT_SCRIPT_USERS, via: null };
  }
  const via = asked.userSwitch ?? null;
  if (!range || !via) {
    return {
      mode: 'agent',
      warning:
        `scripts run as the agent's own user (uid ${process.getuid?.()}), so they could read its environment ` +
        `and files: set VANTAGE_SCRIPT_USERS and VANTAGE_USER_SWITCH (${DOCS})`,
    };
  }
  const problem = switchProblem(via, range.first);
  if (problem) return { mode: 'agent', warning: `scripts run as the agent's own user: ${problem}` };
  return { mode: 'per-run', ...range, via };
}

/** `FIRST-LAST` of VANTAGE_SCRIPT_USERS, a range of uids above 0; null when it is not one. */
export function parseUidRange(value: string): { first: number; last: number } | null {
  const match = /^(\d+)-(\d+)$/.exec(value.trim());
  if (!match) return null;
  const [first, last] = [Number(match[1]), Number(match[2])];
  return first >= 1 && last >= first && last <= 4294967294 ? { first, last } : null;
}

/** VANTAGE_SCRIPT_USER: `same`, or `UID:GID`; null when it is neither. */
export function parseScriptUser(value: string): 'same' | ScriptUser | null {
  const trimmed = value.trim();
  if (trimmed === 'same') return 'same';
  const fixed = /^(\d+):(\d+)$/.exec(trimmed);
  return fixed ? { uid: Number(fixed[1]), gid: Number(fixed[2]) } : null;
}

/** The arguments of the switch program that make the rest of the command line run as `user`. */
function switchArgs(user: ScriptUser): string[] {
  // No supplementary groups, no capabilities, and no way to gain any (file capabilities, set-uid programs).
  return [
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--no-new-privs',
    '--',
  ];
}

const probed = new Map<string, string | null>();

/** Why the switch program cannot make a script user here (run once per program and range), or null. */
function switchProblem(via: string, uid: number): string | null {
  const key = `${via}\0${uid}`;
  if (!probed.has(key)) {
    const probe = spawnSync(via, [...switchArgs({ uid, gid: uid }), '/bin/true'], {
      timeout: 5000,
      encoding: 'utf8',
    });
    const failure =
      probe.error?.message ?? (probe.status === 0 ? null : probe.stderr.trim() || `exit ${probe.status}`);
    probed.set(
      key,
      failure &&
        `VANTAGE_USER_SWITCH ${via} cannot switch to uid ${uid} (${failure}): the agent needs the SETUID and ` +
          `SETGID capabilities with privilege escalation allowed (${DOCS})`,
    );
  }
  return probed.get(key) ?? null;
}

/** The uids of a per-run range that no run holds; one list per range, shared by every executor. */
interface Pool {
  free: number[];
  waiting: Array<(uid: number) => void>;
}
const pools = new Map<string, Pool>();

/** Uids of the system's users (/etc/passwd): never handed to a run, whose processes are all killed at its end. */
function systemUids(): Set<number> {
  try {
    const lines = readFileSync('/etc/passwd', 'utf8').split('\n');
    return new Set(lines.map((line) => Number(line.split(':')[2])).filter(Number.isInteger));
  } catch {
    return new Set();
  }
}

function poolOf(first: number, last: number): Pool {
  const key = `${first}-${last}`;
  let pool = pools.get(key);
  if (!pool) {
    const taken = systemUids();
    const size = Math.min(last - first + 1, 4096);
    const free = Array.from({ length: size }, (_, i) => first + i).filter((uid) => !taken.has(uid));
    pool = { free, waiting: [] };
    pools.set(key, pool);
  }
  return pool;
}

/**
 * The user for one run, held until `release()`: null for the agent's own user. A per-run user waits for a
 * free uid of the range when every one is taken (or until `signal` aborts, which rejects).
 */
export async function acquireRunUser(users: ScriptUsers, signal?: AbortSignal): Promise<RunUser | null> {
  if (users.mode === 'agent') return null;
  if (users.mode === 'shared') return { ...users.user, via: null, exclusive: false, release: () => {} };
  const pool = poolOf(users.first, users.last);
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  const uid =
    pool.free.shift() ??
    (await new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        pool.waiting.splice(pool.waiting.indexOf(take), 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const take = (uid: number) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(uid);
      };
      pool.waiting.push(take);
      signal?.addEventListener('abort', onAbort, { once: true });
    }));
  let released = false;
  return perRunUser(uid, users.via, () => {
    if (released) return;
    released = true;
    const next = pool.waiting.shift();
    if (next) next(uid);
    else pool.free.unshift(uid);
  });
}

/** The per-run user `uid` (its gid the same), switched to through `via`; `release` gives it back. */
export function perRunUser(uid: number, via: string | null, release: () => void = () => {}): RunUser {
  return { uid, gid: uid, via, exclusive: true, release };
}

/** Why scripts are not kept from the agent as asked; null when all is as asked. */
export function scriptUsersWarning(users: ScriptUsers): string | null {
  return users.mode === 'agent' ? users.warning : null;
}

/** How to start `argv` as `user` (the agent's own user when null): the program, its arguments, uid and gid. */
export function commandAs(
  user: RunUser | null,
  argv: readonly string[],
): { file: string; args: string[]; ids: { uid?: number; gid?: number } } {
  const [file = '', ...args] = argv;
  if (!user) return { file, args, ids: {} };
  if (user.via) return { file: user.via, args: [...switchArgs(user), ...argv], ids: {} };
  return { file, args, ids: { uid: user.uid, gid: user.gid } };
}

/** Runs a short command as `user` (cleaning up after a run); its failure is returned, not thrown. */
export async function runAs(user: RunUser | null, argv: readonly string[]): Promise<Error | null> {
  const { file, args, ids } = commandAs(user, argv);
  try {
    await promisify(execFile)(file, args, { ...ids, timeout: 60_000, env: { PATH: '/usr/bin:/bin' } });
    return null;
  } catch (error) {
    return error as Error;
  }
}

import { readdir, readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunUser, runAs } from './script-users.js';

/**
 * Finding and ending every process of a run. A run's processes are the descendants of its first process and
 * every process whose environment holds the run's marker: browsers that start in a session of their own, and
 * daemons that left their parent, are found by the marker. A run with a user of its own (RunUser.exclusive)
 * owns every process of that user instead.
 */

interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The process's effective uid. */
  uid: number;
  zombie: boolean;
}

const PROC = '/proc';

async function readProcesses(): Promise<ProcessEntry[]> {
  const names = await readdir(PROC).catch(() => [] as string[]);
  const entries = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name): Promise<ProcessEntry | null> => {
        const [line, owner] = await Promise.all([
          readFile(`${PROC}/${name}/stat`, 'utf8').catch(() => null),
          stat(`${PROC}/${name}`).catch(() => null),
        ]);
        if (!line || !owner) return null;
        // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
        const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
        const zombie = fields[0] === 'Z' || fields[0] === 'X';
        return { pid: Number(name), ppid: Number(fields[1]), uid: owner.uid, zombie };
      }),
  );
  return entries.filter((e): e is ProcessEntry => e !== null && !e.zombie && e.pid !== process.pid);
}

async function hasMarker(pid: number, marker: string): Promise<boolean> {
  const environ = await readFile(`${PROC}/${pid}/environ`, 'latin1').catch(() => null);
  return environ !== null && `\0${environ}`.includes(`\0${marker}\0`);
}

/** The live processes of a run: descendants of `rootPid` and holders of `marker`. */
export async function runProcesses(rootPid: number | null, marker: string): Promise<number[]> {
  const all = await readProcesses();
  const found = new Set<number>();
  if (rootPid !== null && all.some((e) => e.pid === rootPid)) found.add(rootPid);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of all) {
      if (!found.has(entry.pid) && found.has(entry.ppid)) {
        found.add(entry.pid);
        grew = true;
      }
    }
  }
  const marked = await Promise.all(
    all.filter((e) => !found.has(e.pid)).map(async (e) => ((await hasMarker(e.pid, marker)) ? e.pid : 0)),
  );
  for (const pid of marked) if (pid) found.add(pid);
  return [...found];
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Kills every process of a run. They are stopped first, round after round until no new one appears, so none
 * can start another while the others are killed; then all are killed at once, with the process group of
 * `rootPid`. Resolves when they are gone (or after `waitMs`), with how many there were.
 */
export async function killRunProcesses(
  rootPid: number | null,
  marker: string,
  waitMs = 3000,
): Promise<number> {
  const stopped = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const fresh = (await runProcesses(rootPid, marker)).filter((pid) => !stopped.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      send(pid, 'SIGSTOP');
      stopped.add(pid);
    }
  }
  const count = stopped.size;
  if (rootPid !== null) send(-rootPid, 'SIGKILL');
  for (const pid of stopped) send(pid, 'SIGKILL');
  const deadline = Date.now() + waitMs;
  while (stopped.size > 0 && Date.now() < deadline) {
    const alive = new Set((await readProcesses()).map((e) => e.pid));
    for (const pid of stopped) if (!alive.has(pid)) stopped.delete(pid);
    if (stopped.size > 0) await sleep(20);
  }
  return count;
}

/** The live processes of a user. */
export async function userProcesses(uid: number): Promise<number[]> {
  return (await readProcesses()).filter((e) => e.uid === uid).map((e) => e.pid);
}

/**
 * Kills every process of a run's own user: `kill -9 -1` run as that user, which signals all of its processes
 * at once (none can start another meanwhile) and no other. Resolves when they are gone (or after `waitMs`),
 * with how many there were.
 */
export async function killUserProcesses(user: RunUser, waitMs = 3000): Promise<number> {
  const found = await userProcesses(user.uid);
  if (found.length === 0) return 0;
  await runAs(user, ['/bin/sh', '-c', 'kill -9 -1']);
  const deadline = Date.now() + waitMs;
  while ((await userProcesses(user.uid)).length > 0 && Date.now() < deadline) await sleep(20);
  return found.length;
}

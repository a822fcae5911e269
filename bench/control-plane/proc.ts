/** What /proc says about processes and the machine: CPU seconds, resident memory, busy cores, load. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** Resident memory of a process in MiB; 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** A process's resident set now, in MiB: in all, anonymous memory, file pages, and of those the node binary's. */
export interface RssSplit {
  total: number;
  anon: number;
  file: number;
  binary: number;
}

export function rssSplit(pid: number): RssSplit {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0);
  let binary = 0;
  let inBinary = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) inBinary = mapping[1] === process.execPath;
    else if (inBinary) binary += Number(/^Rss:\s+(\d+) kB/.exec(line)?.[1] ?? 0);
  }
  return {
    total: kb('VmRSS') / 1024,
    anon: kb('RssAnon') / 1024,
    file: (kb('RssFile') + kb('RssShmem')) / 1024,
    binary: binary / 1024,
  };
}

/** Busy and total CPU seconds of the whole machine, all cores. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...ticks] = line.trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / TICKS_PER_S, total: (busy + idle + iowait) / TICKS_PER_S };
}

export const loadAverage = (): string =>
  readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsError } from '../../src/config/env.js';
import {
  acquireRunUser,
  createRunFolder,
  handOver,
  memoryCapAvailable,
  type RunFolder,
  RunLog,
  type RunUser,
  removeRunFolder,
  runMarker,
  runProcesses,
  runSandboxed,
  type ScriptUsers,
  scriptEnvironment,
  scriptSettingsFromEnv,
  userProcesses,
} from '../../src/runtimes/index.js';
import { waitFor } from '../support/agent.js';

const identity = {
  checkId: 'check-1',
  checkName: 'Sandbox',
  checkType: 'BROWSER',
  runId: 'run-1',
  region: 'eu-west-1',
  runtimeVersion: '2026.04',
};
const isRoot = process.getuid?.() === 0;
const SETPRIV = '/usr/bin/setpriv';
/** The users of the environment (as root: a user of its own per run), and, as root, explicit ranges. */
const modes: Array<readonly [string, ScriptUsers]> = [
  ['the default users', scriptSettingsFromEnv().scriptUsers],
  ...(isRoot
    ? ([
        ['a user per run', { mode: 'per-run', first: 61100, last: 61103, via: null }],
        // What a non-root agent does through its switch program (a copy of setpriv), done by root here.
        [
          'a user per run switched to by setpriv',
          { mode: 'per-run', first: 61104, last: 61107, via: SETPRIV },
        ],
      ] as const)
    : []),
];

let workDir: string;
let folder: RunFolder;
let user: RunUser | null;

/** The processes of the run still alive: by its marker, and every process of its user when it has its own. */
async function leftOver(): Promise<number[]> {
  const marked = await runProcesses(null, runMarker(folder));
  return user?.exclusive ? [...marked, ...(await userProcesses(user.uid))] : marked;
}

function shell(
  script: string,
  options: { signal?: AbortSignal; timeoutMs?: number; memoryLimitMb?: number } = {},
) {
  const log = new RunLog();
  const env = scriptEnvironment(identity, { GREETING: 'hello' }, folder);
  const run = runSandboxed({
    file: '/bin/sh',
    args: ['-c', script],
    cwd: folder.work,
    env,
    marker: runMarker(folder),
    log,
    user,
    ...options,
  });
  return { log, run };
}

describe.each(modes)('a sandboxed script, with %s,', (_, users) => {
  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'vantage-sandbox-'));
    await chmod(workDir, 0o711);
    folder = await createRunFolder(workDir, 'run-1');
    user = await acquireRunUser(users);
    await handOver(folder, user);
  });

  afterEach(async () => {
    await removeRunFolder(folder, false, user);
    user?.release();
    await rm(workDir, { recursive: true, force: true });
  });

  it('sees only the check variables and the runtime variables, in a working folder of its own', async () => {
    process.env.API_KEY = 'pl_acct.loc.agent-secret';
    const { log, run } = shell('env; pwd');
    const exit = await run;
    delete process.env.API_KEY;
    expect(exit).toMatchObject({ code: 0, stopped: null });
    const lines = log.lines().map((l) => l.msg);
    const names = lines.filter((l) => /^[A-Za-z_]+=/.test(l)).map((l) => l.split('=')[0]);
    expect(names.sort()).toEqual(
      [
        'CHECK_ID',
        'CHECK_NAME',
        'CHECK_RUN_ID',
        'CHECK_TYPE',
        'GREETING',
        'HOME',
        'LANG',
        'PATH',
        'PWD',
        'REGION',
        'RUNTIME_VERSION',
        'TMPDIR',
      ].sort(),
    );
    expect(lines).toContain('CHECK_NAME=Sandbox');
    expect(lines).toContain('REGION=eu-west-1');
    expect(lines).toContain(folder.work);
    expect(lines.join('\n')).not.toContain('agent-secret');
  });

  it.runIf(isRoot)('runs as an unprivileged user when the agent is root', async () => {
    const { log, run } = shell(
      `id -u; cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo readable || echo denied`,
    );
    await run;
    expect(log.lines().map((l) => l.msg)).toEqual([String(user?.uid), 'denied']);
  });

  it('is killed at its time limit with every process it started, detached ones included', async () => {
    const { log, run } = shell('setsid sleep 300 & (sleep 300 &); echo started; sleep 300', {
      timeoutMs: 1500,
    });
    const exit = await run;
    expect(exit.stopped).toBe('timeout');
    expect(log.lines().map((l) => l.msg)).toEqual(['started']);
    expect(await leftOver()).toEqual([]);
  });

  it('is killed when its run is cancelled', async () => {
    const controller = new AbortController();
    const { run } = shell('sleep 300', { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const exit = await run;
    expect(exit.stopped).toBe('aborted');
    expect(await leftOver()).toEqual([]);
  });

  it('leaves no process behind when it ends on its own', async () => {
    const { run } = shell('setsid sleep 300 & echo done');
    const exit = await run;
    expect(exit).toMatchObject({ code: 0, stopped: null, leftovers: 1 });
    expect(await leftOver()).toEqual([]);
  });

  it.runIf(memoryCapAvailable)('cannot use more memory than its cap', async () => {
    const node = process.execPath;
    const hog = `${node} -e "const a = []; for (;;) a.push(Buffer.alloc(1e6, 1))"`;
    const { log, run } = shell(`${node} -e "console.log('started')" && ${hog} && echo survived`, {
      memoryLimitMb: 256,
    });
    const exit = await run;
    const said = log.lines().map((l) => l.msg);
    expect(said).toContain('started');
    expect(said).not.toContain('survived');
    expect(exit.code).not.toBe(0);
  });

  it('reports a command that cannot start', async () => {
    const log = new RunLog();
    const exit = await runSandboxed({
      file: join(folder.work, 'no-such-program'),
      args: [],
      cwd: folder.work,
      env: {},
      marker: runMarker(folder),
      log,
    });
    expect(exit.startError).toMatch(/ENOENT/);
  });
});

describe('a run folder', () => {
  it('keeps only the artifacts when asked to', async () => {
    workDir = await mkdtemp(join(tmpdir(), 'vantage-sandbox-'));
    folder = await createRunFolder(workDir, 'run-1');
    await writeFile(join(folder.artifacts, 'shot.png'), 'png');
    await writeFile(join(folder.work, 'check.spec.ts'), 'test');
    await removeRunFolder(folder, true);
    expect(await readdir(folder.root)).toEqual(['artifacts']);
    expect(await readFile(join(folder.artifacts, 'shot.png'), 'utf8')).toBe('png');
    await rm(workDir, { recursive: true, force: true });
  });
});

describe.runIf(isRoot)('a run folder of a user switched to by setpriv', () => {
  it('is refused, naming what to change, when that user cannot reach the work folder', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'vantage-closed-'));
    const closed = await createRunFolder(join(parent, 'runs'), 'run-1');
    const switched = await acquireRunUser({ mode: 'per-run', first: 61110, last: 61110, via: SETPRIV });
    await expect(handOver(closed, switched)).rejects.toThrow(
      /uid 61110\) cannot reach the run folders in .*\/runs \(VANTAGE_WORK_DIR\): it and every folder above it must be searchable by others \(chmod o\+x\)/,
    );
    switched?.release();
    await rm(parent, { recursive: true, force: true });
  });
});

describe.runIf(isRoot)('script users from the environment of an agent running as root', () => {
  const usersOf = (env: NodeJS.ProcessEnv) => scriptSettingsFromEnv(env).scriptUsers;

  it('are a user per run by default, one user when given, a user per run from a range, or the agent when asked', () => {
    expect(usersOf({})).toEqual({ mode: 'per-run', first: 60600, last: 60855, via: null });
    expect(usersOf({ VANTAGE_SCRIPT_USER: '2000:3000' })).toEqual({
      mode: 'shared',
      user: { uid: 2000, gid: 3000 },
    });
    expect(usersOf({ VANTAGE_SCRIPT_USERS: '20000-20063' })).toEqual({
      mode: 'per-run',
      first: 20000,
      last: 20063,
      via: null,
    });
    expect(usersOf({ VANTAGE_SCRIPT_USER: 'same' })).toEqual({ mode: 'agent', warning: null });
  });

  it('are refused, naming the setting and its rule, when the range is mistyped (no fallback)', () => {
    expect(() => usersOf({ VANTAGE_SCRIPT_USERS: '20063-20000' })).toThrow(
      new SettingsError(['VANTAGE_SCRIPT_USERS: must be FIRST-LAST, a range of uids above 0']),
    );
  });

  it("keep two runs at once apart: neither reads the other's environment, nothing outlives its run", async () => {
    const users = usersOf({});
    const workDir = await mkdtemp(join(tmpdir(), 'vantage-apart-'));
    await chmod(workDir, 0o711);
    const runs = await Promise.all(
      ['run-a', 'run-b'].map(async (id) => {
        const runFolder = await createRunFolder(workDir, id);
        const runUser = await acquireRunUser(users);
        await handOver(runFolder, runUser);
        return { folder: runFolder, user: runUser };
      }),
    );
    const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(a.user?.uid).not.toBe(b.user?.uid);
    const start = (run: typeof a, script: string, env: Record<string, string>) => {
      const log = new RunLog();
      const exit = runSandboxed({
        file: '/bin/sh',
        args: ['-c', script],
        cwd: run.folder.work,
        env: { ...scriptEnvironment(identity, env, run.folder) },
        marker: runMarker(run.folder),
        log,
        user: run.user,
        timeoutMs: 10_000,
      });
      return { log, exit };
    };
    // A holds a secret and leaves a detached process behind; B looks for A's environment while A runs.
    const first = start(a, 'env -i setsid sh -c "sleep 300" & echo started; sleep 2', {
      SECRET: 'A-secret-value',
    });
    await waitFor('A running', async () => (await userProcesses(a.user?.uid ?? 0)).length >= 2);
    const pids = await userProcesses(a.user?.uid ?? 0);
    const second = start(
      b,
      `for p in ${pids.join(' ')}; do cat /proc/$p/environ 2>/dev/null | tr '\\0' '\\n' | grep SECRET || echo denied; done`,
      {},
    );
    await second.exit;
    expect(
      second.log
        .lines()
        .map((l) => l.msg)
        .join('\n'),
    ).not.toContain('A-secret-value');
    expect(second.log.lines().map((l) => l.msg)).toContain('denied');
    await first.exit;
    expect(await userProcesses(a.user?.uid ?? 0)).toEqual([]);
    for (const run of runs) {
      await removeRunFolder(run.folder, false, run.user);
      run.user?.release();
    }
    await rm(workDir, { recursive: true, force: true });
  });
});

describe('users of their own per run', () => {
  const users: ScriptUsers = { mode: 'per-run', first: 61200, last: 61201, via: null };

  it('gives each run at once another user, and a waiting run the first one released', async () => {
    const first = await acquireRunUser(users);
    const second = await acquireRunUser(users);
    expect([first?.uid, second?.uid]).toEqual([61200, 61201]);
    expect(first).toMatchObject({ gid: 61200, exclusive: true });
    const third = acquireRunUser(users);
    const cancelled = new AbortController();
    const fourth = acquireRunUser(users, cancelled.signal);
    cancelled.abort(new Error('cancelled'));
    await expect(fourth).rejects.toThrow('cancelled');
    second?.release();
    expect((await third)?.uid).toBe(61201);
    first?.release();
    (await third)?.release();
    const again = await acquireRunUser(users);
    expect(again?.uid).toBe(61201);
    again?.release();
  });

  it('turns a run already stopped away without taking the place of one that waits', async () => {
    const single: ScriptUsers = { mode: 'per-run', first: 61210, last: 61210, via: null };
    const holder = await acquireRunUser(single);
    const waiting = acquireRunUser(single);
    await expect(acquireRunUser(single, AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
    holder?.release();
    expect((await waiting)?.uid).toBe(61210);
    (await waiting)?.release();
  });
});

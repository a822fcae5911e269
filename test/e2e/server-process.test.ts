/**
 * The real `vantage server` process on the embedded store: one process per data folder, a failed first start that
 * creates nothing, and a data folder no other user can read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, processApi, ServerProcess } from '../support/server-process.js';

const folders: string[] = [];
const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-server-'));
  folders.push(dir);
  return join(dir, 'data');
}

function start(env: Record<string, string>): ServerProcess {
  const server = new ServerProcess({ LOG_LEVEL: 'WARN', ...env });
  running.push(server);
  return server;
}

// Each test starts real `vantage server` processes through tsx, one after another: slow on a loaded CI machine.
describe('vantage server on the embedded store', { timeout: 180_000 }, () => {
  it('refuses a second process on the same data folder in one line, and starts again after a kill -9', async () => {
    const dir = dataDir();
    const first = start({ VANTAGE_DATA_DIR: dir, PORT: String(await freePort()) });
    await first.listening();
    const second = start({ VANTAGE_DATA_DIR: dir, PORT: String(await freePort()) });
    expect(await second.exited).toEqual({ code: 2, signal: null });
    expect(second.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^vantage server: the embedded store in .* is in use by process \d+: .*DATABASE_URL/,
      ),
    ]);
    first.kill('SIGKILL');
    await first.exited;
    const third = start({ VANTAGE_DATA_DIR: dir, PORT: String(await freePort()) });
    await third.listening();
  });

  it('on a busy port says so in one line naming PORT and creates nothing; the next start prints the key', async () => {
    const dir = dataDir();
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const failed = start({ VANTAGE_DATA_DIR: dir, PORT: String(port) });
      expect(await failed.exited).toEqual({ code: 2, signal: null });
      expect(failed.stderr.trim().split('\n')).toEqual([
        `vantage server: cannot listen on 127.0.0.1:${port} (EADDRINUSE): set PORT (or HOST) to a free port of this machine`,
      ]);
      expect(failed.stdout).not.toContain('Bearer');
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    const next = start({ VANTAGE_DATA_DIR: dir, PORT: String(await freePort()) });
    await next.listening();
    expect(await next.keyPrinted()).toMatchObject({ apiKey: expect.stringMatching(/^vk_/) });
  });

  it('with VANTAGE_BOOTSTRAP_KEY: logs its account id at every start, and the key alone lists that account', async () => {
    const dir = dataDir();
    const apiKey = `vk_${'b'.repeat(43)}`;
    const env = { VANTAGE_DATA_DIR: dir, VANTAGE_BOOTSTRAP_KEY: apiKey, LOG_LEVEL: 'INFO' };
    for (const round of ['first start', 'second start']) {
      const port = await freePort();
      const server = start({ ...env, PORT: String(port) });
      await server.listening();
      const answer = await fetch(`http://127.0.0.1:${port}/v1/accounts`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(answer.status, round).toBe(200);
      const [account] = (await answer.json()) as { id: string }[];
      const logged = `${server.stdout}${server.stderr}`;
      expect(logged, round).toContain(`"accountId":"${account?.id}"`);
      expect(logged, round).not.toContain(apiKey);
      await server.stop();
    }
  });

  it('keeps its data folder readable by its owner only, whatever the umask, also for another user', async () => {
    const dir = dataDir();
    const port = await freePort();
    const server = start({ VANTAGE_DATA_DIR: dir, PORT: String(port) });
    await server.listening();
    const key = await server.keyPrinted();
    const secret = 'Sup3r-s3cret-value-in-the-WAL';
    expect(
      (await processApi(port, key, 'POST', '/v1/variables', { key: 'S', value: secret, secret: true }))
        .status,
    ).toBe(201);
    await server.stop();

    const loose: string[] = [];
    const files: string[] = [];
    const walk = (path: string) => {
      const info = statSync(path);
      if ((info.mode & 0o077) !== 0) loose.push(`${(info.mode & 0o777).toString(8)} ${path}`);
      if (info.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
      else files.push(path);
    };
    walk(dir);
    expect(files.length).toBeGreaterThan(100);
    expect(loose).toEqual([]);
    // Another user (nobody) can neither list the folder nor read the store's files.
    const asNobody = (...command: string[]) => {
      try {
        execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...command], {
          stdio: 'pipe',
        });
        return 'allowed';
      } catch {
        return 'denied';
      }
    };
    expect(asNobody('ls', dir)).toBe('denied');
    expect(asNobody('cat', files[0] as string)).toBe('denied');
    expect(asNobody('true')).toBe('allowed');
  });
});

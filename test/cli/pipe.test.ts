import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/vantage-command.js';

it('vantage run | head: stops quietly once the reader of its output is gone', async () => {
  const target = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await once(target, 'listening');
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  const file = join(await mkdtemp(join(tmpdir(), 'vantage-pipe-')), 'checks.json');
  await writeFile(
    file,
    JSON.stringify(
      Array.from({ length: 200 }, (_, i) => ({ name: `check ${i}`, checkType: 'URL', request: { url } })),
    ),
  );
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}src/cli/main.ts`, 'run', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // Like `head -1`: read the first line, then close the pipe.
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const [code] = await once(child, 'close');
    expect(stderr).toBe('');
    expect(code).toBe(141);
  } finally {
    target.close();
  }
});

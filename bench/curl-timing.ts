/**
 * What the timing benchmarks share: a local server that answers after a known delay, in a process of its own so
 * its work does not share the measuring event loop, and curl's timings of a URL.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { median } from './support.js';

const run = promisify(execFile);

/** Milliseconds from the start until connected, until the first byte, and in all. */
export interface TimingSample {
  connect: number;
  firstByte: number;
  total: number;
}

/** Starts `node -e` serving `ok` after `delayMs` on 127.0.0.1; returns its URL and a stop. */
export async function startDelayedServer(delayMs: number): Promise<{ url: string; stop: () => void }> {
  const source = `
    const server = require('node:http').createServer((_req, res) => setTimeout(() => res.end('ok'), ${delayMs}));
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const server = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(server.stdout, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${port.toString().trim()}/`, stop: () => server.kill() };
}

/** curl's connect, first-byte and total times of one GET. */
export async function curlSample(url: string): Promise<TimingSample> {
  const format = '%{time_connect} %{time_starttransfer} %{time_total}';
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', format, url]);
  const [connect = 0, firstByte = 0, total = 0] = stdout
    .trim()
    .split(' ')
    .map((s) => Number(s) * 1000);
  return { connect, firstByte, total };
}

export function medianSample(samples: readonly TimingSample[]): TimingSample {
  return {
    connect: median(samples.map((s) => s.connect)),
    firstByte: median(samples.map((s) => s.firstByte)),
    total: median(samples.map((s) => s.total)),
  };
}

export function sampleLine(name: string, m: TimingSample): string {
  return `${name.padEnd(8)} total ${m.total.toFixed(3)} ms  (connected ${m.connect.toFixed(3)}, first byte ${m.firstByte.toFixed(3)})`;
}

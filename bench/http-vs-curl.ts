/**
 * Our HTTP executor's response time against curl's time_total, on the same local URL that answers after
 * a known delay. Goal: medians within 1 ms. Run: npx tsx bench/http-vs-curl.ts
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { apiCheckSchema } from '../src/checks/index.js';
import { executeApi } from '../src/executors/http/index.js';
import { benchContext, median } from './support.js';

const DELAY_MS = 50;
const RUNS = 20;
const WARMUP = 3;

const run = promisify(execFile);

/** The server runs in a process of its own, so its work does not share our event loop. */
const SERVER = `
  const server = require('node:http').createServer((_req, res) => setTimeout(() => res.end('ok'), ${DELAY_MS}));
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const [port] = (await once(server.stdout, 'data')) as [Buffer];
const url = `http://127.0.0.1:${port.toString().trim()}/`;

const check = apiCheckSchema.parse({ name: 'bench', checkType: 'API', request: { url } });
const context = benchContext();

/** Milliseconds from the start until connected, until the first byte, and in all. */
interface Sample {
  connect: number;
  firstByte: number;
  total: number;
}

async function ours(): Promise<Sample> {
  const attempt = await executeApi(check, context);
  const response = 'apiCheckResult' in attempt.detail ? attempt.detail.apiCheckResult.response : null;
  if (attempt.hasErrors || !response) throw new Error(attempt.error ?? 'request failed');
  const { timings } = response;
  return { connect: timings.connect, firstByte: timings.response, total: attempt.responseTime };
}

async function curl(): Promise<Sample> {
  const format = '%{time_connect} %{time_starttransfer} %{time_total}';
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', format, url]);
  const [connect = 0, firstByte = 0, total = 0] = stdout
    .trim()
    .split(' ')
    .map((s) => Number(s) * 1000);
  return { connect, firstByte, total };
}

for (let i = 0; i < WARMUP; i++) {
  await ours();
  await curl();
}
const oursSamples: Sample[] = [];
const curlSamples: Sample[] = [];
// Interleaved, so both see the same machine load.
for (let i = 0; i < RUNS; i++) {
  oursSamples.push(await ours());
  curlSamples.push(await curl());
}
server.kill();

const medians = (samples: Sample[]) => ({
  connect: median(samples.map((s) => s.connect)),
  firstByte: median(samples.map((s) => s.firstByte)),
  total: median(samples.map((s) => s.total)),
});
const oursMedian = medians(oursSamples);
const curlMedian = medians(curlSamples);
const difference = oursMedian.total - curlMedian.total;
const line = (name: string, m: Sample) =>
  `${name.padEnd(8)} total ${m.total.toFixed(3)} ms  (connected ${m.connect.toFixed(3)}, first byte ${m.firstByte.toFixed(3)})`;
console.log(`server delay ${DELAY_MS} ms, ${RUNS} requests each, medians:`);
console.log(line('vantage', oursMedian));
console.log(line('curl', curlMedian));
console.log(`difference ${difference >= 0 ? '+' : ''}${difference.toFixed(3)} ms (goal: within 1 ms)`);
process.exitCode = Math.abs(difference) <= 1 ? 0 : 1;

/**
 * Reference measurement for "TCP connect time agrees with a reference": the connect phase our TCP executor
 * reports, against a plain net.connect timed the same way and curl's %{time_connect}, to a local listener.
 * Run: npx tsx bench/tcp-connect.ts [samples]
 */
import { execFile } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { tcpCheckSchema } from '../src/checks/index.js';
import { executeTcp } from '../src/executors/tcp/index.js';
import { benchContext, median, quantile } from './support.js';

const SAMPLES = Number(process.argv[2] ?? 50);
const WARM_UP = 5;
const HOST = '127.0.0.1';

const server = createServer((socket) => socket.end());
await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
const { port } = server.address() as { port: number };

const context = benchContext();
const check = tcpCheckSchema.parse({ name: 'bench', checkType: 'TCP', request: { hostname: HOST, port } });

async function executorConnect(): Promise<number> {
  const attempt = await executeTcp(check, context);
  if (!('tcpCheckResult' in attempt.detail) || !attempt.detail.tcpCheckResult.response) {
    throw new Error(`executor failed: ${attempt.error}`);
  }
  return attempt.detail.tcpCheckResult.response.timingPhases.connect;
}

function netConnect(): Promise<number> {
  return new Promise((resolve, reject) => {
    const begun = performance.now();
    const socket = connect({ host: HOST, port, family: 4 }, () => {
      const ms = performance.now() - begun;
      socket.destroy();
      resolve(ms);
    });
    socket.once('error', reject);
  });
}

const run = promisify(execFile);
let curlWorks = true;
async function curlConnect(): Promise<number | null> {
  if (!curlWorks) return null;
  try {
    const { stdout } = await run(
      'curl',
      ['-s', '-o', '/dev/null', '-w', '%{time_connect}', `telnet://${HOST}:${port}`],
      {
        timeout: 5000,
      },
    );
    return Number(stdout) * 1000;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout && Number(stdout) > 0) return Number(stdout) * 1000;
    curlWorks = false;
    return null;
  }
}

const samples = { executor: [] as number[], net: [] as number[], curl: [] as number[] };
for (let i = 0; i < WARM_UP + SAMPLES; i++) {
  // Interleaved, so drift in the machine's load affects each method alike.
  const executor = await executorConnect();
  const net = await netConnect();
  const curl = await curlConnect();
  if (i < WARM_UP) continue;
  samples.executor.push(executor);
  samples.net.push(net);
  if (curl !== null) samples.curl.push(curl);
}
server.close();

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

console.log(`TCP connect to ${HOST}:${port}, ${SAMPLES} samples each (after ${WARM_UP} warm-up)`);
for (const [name, values] of Object.entries(samples)) {
  if (values.length === 0) {
    console.log(`${name.padEnd(9)} unavailable`);
    continue;
  }
  console.log(
    `${name.padEnd(9)} median ${fmt(quantile(values, 0.5))}  p10 ${fmt(quantile(values, 0.1))}  p90 ${fmt(quantile(values, 0.9))}`,
  );
}
console.log(`executor − net.connect: ${fmt(median(samples.executor) - median(samples.net))} (medians)`);
if (samples.curl.length > 0) {
  console.log(`executor − curl:        ${fmt(median(samples.executor) - median(samples.curl))} (medians)`);
}

// Measures the agent's memory per concurrent lightweight run, for the sizing figures of docs/agent.md.
//
//   npm run build && [BODY_KB=16] node scripts/sizing/agent-memory.mjs [N …]    (default N: 1 10 50 100)
//
// A real control plane (`vantage server` of dist/, embedded store) and, for each N, a fresh agent process with
// JOB_CONCURRENCY=N. N API checks on that private location call a local HTTP target that holds each request for
// HOLD_MS before answering BODY_KB of JSON, so all N runs are in flight together. Every round triggers the N
// checks; the agent's resident set (VmRSS of /proc/PID/status) is sampled every 100 ms. Reported per N: RSS
// at start, idle after a first round, the peak over three more rounds, and (peak − start) / N.
// Everything listens on 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const HOLD_MS = 4000;
const BODY_KB = Number(process.env.BODY_KB ?? 16);
const ROUNDS = 3;
const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [1, 10, 50, 100];
const work = mkdtempSync(join(tmpdir(), 'vantage-sizing-'));
const children = [];

const item = JSON.stringify({ id: 0, name: 'item'.padEnd(60) });
const body = `[${Array.from({ length: Math.ceil((BODY_KB * 1024) / (item.length + 1)) }, () => item).join(',')}]`;
const target = createServer((_req, res) => {
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), HOLD_MS);
});
target.listen(0, '127.0.0.1');
await once(target, 'listening');
const targetUrl = `http://127.0.0.1:${target.address().port}`;

function start(args, env) {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.output = '';
  child.stdout.on('data', (d) => {
    child.output += d;
  });
  child.stderr.on('data', (d) => {
    child.output += d;
  });
  children.push(child);
  return child;
}

async function freePort() {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address();
  s.close();
  return port;
}

async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

// The control plane, and its first admin key (printed once).
const serverPort = await freePort();
const server = start(['server'], {
  HOST: '127.0.0.1',
  PORT: String(serverPort),
  VANTAGE_DATA_DIR: join(work, 'server'),
  LOG_LEVEL: 'WARN',
});
const api = `http://127.0.0.1:${serverPort}`;
await until('vantage server', () => /Authorization: Bearer (\S+)/.test(server.output), 120_000);
const headers = {
  authorization: `Bearer ${/Authorization: Bearer (\S+)/.exec(server.output)[1]}`,
  'x-service-account': /x-service-account: (\S+)/.exec(server.output)[1],
  'content-type': 'application/json',
};
async function call(method, path, payload) {
  const response = await fetch(`${api}${path}`, { method, headers, body: JSON.stringify(payload) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

console.log(
  `node ${process.version}; API checks; the target answers ${(body.length / 1024).toFixed(0)} KB after ${HOLD_MS} ms; ` +
    `peak over ${ROUNDS} rounds`,
);
console.log(
  '| concurrent runs (JOB_CONCURRENCY) | RSS at start | RSS idle | RSS peak | (peak − start) / runs |',
);
console.log('|---|---|---|---|---|');
for (const n of counts) {
  const slug = `sizing-${n}`;
  const location = await call('POST', '/v1/private-locations', { name: slug, slugName: slug });
  for (let i = 0; i < n; i++) {
    await call('POST', '/v1/checks', {
      checkType: 'API',
      name: `${slug} ${i}`,
      frequency: 1440,
      tags: [slug],
      privateLocations: [slug],
      request: { url: `${targetUrl}/items?i=${i}`, method: 'GET' },
    });
  }
  const healthPort = await freePort();
  const agent = start(['agent'], {
    API_KEY: location.keys[0].rawKey,
    API_URL: api,
    JOB_CONCURRENCY: String(n),
    AGENT_HEALTH_PORT: String(healthPort),
    AGENT_DATA_DIR: join(work, `agent-${n}`),
    LOG_LEVEL: 'WARN',
  });
  const health = async () => (await fetch(`http://127.0.0.1:${healthPort}/health`)).json();
  await until('the agent to be ready', async () => {
    try {
      return (await fetch(`http://127.0.0.1:${healthPort}/-/readiness`)).status === 200;
    } catch {
      return false;
    }
  });

  const round = async () => {
    await call('POST', '/v2/check-sessions/trigger', { target: { matchTags: [[slug]] } });
    let peak = 0;
    let sawAll = false;
    const deadline = Date.now() + HOLD_MS * 4 + 30_000;
    while (Date.now() < deadline) {
      peak = Math.max(peak, rssMb(agent.pid));
      const { running, spooled } = await health();
      if (running === n) sawAll = true;
      if (sawAll && running === 0 && spooled === 0) break;
      await sleep(100);
    }
    if (!sawAll) throw new Error(`N=${n}: never saw all ${n} runs in flight`);
    return peak;
  };
  await sleep(2000);
  const fresh = rssMb(agent.pid);
  await round(); // warms up: connections, JIT, first allocations
  await sleep(3000);
  const idle = rssMb(agent.pid);
  let peak = 0;
  for (let r = 0; r < ROUNDS; r++) peak = Math.max(peak, await round());
  console.log(
    `| ${n} | ${fresh.toFixed(0)} MiB | ${idle.toFixed(0)} MiB | ${peak.toFixed(0)} MiB | ${((peak - fresh) / n).toFixed(2)} MiB |`,
  );
  agent.kill('SIGTERM');
  await once(agent, 'exit');
}

for (const child of children) child.kill('SIGTERM');
target.close();
await sleep(500);
rmSync(work, { recursive: true, force: true });

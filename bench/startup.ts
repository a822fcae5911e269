/**
 * Start-up and idle memory of the `vantage` command (issue 17), with the Node.js that runs this script, on dist/
 * (built first when src/ is newer): `--version` and `--help`; `run` of one URL check against a local HTTP server
 * (wall time and peak RSS, from /usr/bin/time); `agent` from spawn until /-/readiness answers 200 (connected to
 * a real `vantage server` on an embedded store), and its RSS after it idled, connected over plain HTTP and over
 * HTTPS (a TLS proxy in front of the server, as an ingress would be). Each is the median of RUNS runs. Under the
 * table: where each idle RSS lies (anonymous, file pages, the node binary's), with Node.js idling alone as the floor.
 * Run: node --import tsx bench/startup.ts [runs, default 7]
 * Node.js 24: /work/main/runtimes/engines/node24/node_modules/.bin/node --import tsx bench/startup.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo, connect as netConnect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { freePort, processApi, ServerProcess } from '../test/support/server-process.js';
import { selfSignedCertificate } from '../test/support/tls.js';
import { ROOT } from '../test/support/vantage-command.js';
import { cpuSeconds, type RssSplit, rssSplit } from './control-plane/proc.js';
import { median } from './support.js';

const RUNS = Number(process.argv[2] ?? 7);
const MAIN = join(ROOT, 'dist/cli/main.js');
/** How long the agent idles, connected, before its RSS is read. */
const IDLE_MS = 3000;

const GOALS = {
  version: 0.25,
  help: 0.25,
  runWall: 0.35,
  runPeakMb: 70,
  agentReady: 0.5,
  agentIdleMb: 60,
};

/** The newest modification time of the files under `dir`, in ms. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

if (!existsSync(MAIN) || statSync(MAIN).mtimeMs < newest(join(ROOT, 'src'))) {
  console.log('building dist/ (src/ is newer)…');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

/** One `vantage …` process under /usr/bin/time: wall seconds, peak RSS (MB), CPU seconds, exit status. */
async function timed(args: string[]): Promise<{ wall: number; peakMb: number; cpu: number }> {
  const out = join(work, 'time.txt');
  const command = args[0] === '-e' ? args : [MAIN, ...args];
  const child = spawn('/usr/bin/time', ['-o', out, '-f', '%e %M %U %S', process.execPath, ...command], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`vantage ${args.join(' ')} exited ${code}\n${stderr}`);
  const [wall = 0, kb = 0, user = 0, sys = 0] = (await readFile(out, 'utf8')).trim().split(/\s+/).map(Number);
  return { wall, peakMb: kb / 1024, cpu: user + sys };
}

const splitLine = (what: string, split: RssSplit) =>
  `${what}, ${split.total.toFixed(1)} MB: ${split.anon.toFixed(1)} MB anonymous, ${split.file.toFixed(1)} MB file pages (${split.binary.toFixed(1)} MB of them the node binary's)`;

/** Node.js itself idling (`node -e` with a timer): the floor under every idle RSS below. */
async function bareNodeIdle(): Promise<RssSplit> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  try {
    await sleep(IDLE_MS);
    return rssSplit(child.pid ?? 0);
  } finally {
    child.kill();
    await once(child, 'exit');
  }
}

async function readiness(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/-/readiness`)).status;
  } catch {
    return 0;
  }
}

/** A `vantage agent` from spawn to ready (seconds), then its RSS after IDLE_MS. */
async function agentStart(
  env: Record<string, string>,
): Promise<{ ready: number; cpu: number; idle: RssSplit }> {
  const healthPort = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN, 'agent'], {
    env: { PATH: process.env.PATH ?? '', AGENT_HEALTH_PORT: String(healthPort), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  try {
    while ((await readiness(healthPort)) !== 200) {
      if (child.exitCode !== null) throw new Error(`the agent exited ${child.exitCode}\n${stderr}`);
      if (performance.now() - started > 60_000) throw new Error(`the agent was not ready in 60 s\n${stderr}`);
      await sleep(5);
    }
    const ready = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(child.pid ?? 0);
    await sleep(IDLE_MS);
    return { ready, cpu, idle: rssSplit(child.pid ?? 0) };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

/** TLS in front of the server on `port`, with a certificate for 127.0.0.1: what an agent reaches in production. */
async function tlsProxy(port: number, key: string, cert: string): Promise<TlsServer> {
  const proxy = createTlsServer({ key, cert }, (client) => {
    const upstream = netConnect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return proxy;
}

const work = await mkdtemp(join(tmpdir(), 'vantage-bench-startup-'));
const target = createServer((_req, res) => res.end('ok'));
target.listen(0, '127.0.0.1');
await once(target, 'listening');
const checks = join(work, 'one.json');
await writeFile(
  checks,
  JSON.stringify([
    {
      checkType: 'URL',
      name: 'one',
      request: { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` },
    },
  ]),
);

const serverPort = await freePort();
let server: ServerProcess | undefined;
let proxy: TlsServer | undefined;
let floor = '';
/** Where the idle RSS lies: Node.js alone, then the agents. */
const splits: string[] = [];
const rows: { what: string; value: number; goal: number; unit: string; cpu?: number }[] = [];
try {
  const measure = async (args: string[]) => {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await timed(args));
    return {
      wall: median(runs.map((r) => r.wall)),
      peakMb: median(runs.map((r) => r.peakMb)),
      cpu: median(runs.map((r) => r.cpu)),
    };
  };
  // The floor: Node.js itself, on this machine as loaded as it is now (no goal).
  const bare = await measure(['-e', '0']);
  floor = `node -e 0 takes ${bare.wall.toFixed(2)} s (${bare.cpu.toFixed(2)} s CPU), ${bare.peakMb.toFixed(0)} MB`;
  const version = await measure(['--version']);
  rows.push({
    what: 'vantage --version',
    value: version.wall,
    goal: GOALS.version,
    unit: 's',
    cpu: version.cpu,
  });
  const help = await measure(['--help']);
  rows.push({ what: 'vantage --help', value: help.wall, goal: GOALS.help, unit: 's', cpu: help.cpu });
  const run = await measure(['run', checks]);
  rows.push({
    what: 'vantage run, one URL check',
    value: run.wall,
    goal: GOALS.runWall,
    unit: 's',
    cpu: run.cpu,
  });
  rows.push({
    what: 'vantage run, one URL check: peak RSS',
    value: run.peakMb,
    goal: GOALS.runPeakMb,
    unit: 'MB',
  });

  // Started only now, so that its start does not share the cores with the measurements above.
  server = new ServerProcess(
    { PORT: String(serverPort), VANTAGE_DATA_DIR: join(work, 'server'), LOG_LEVEL: 'WARN' },
    { built: true },
  );
  await server.listening(120_000);
  const key = await server.keyPrinted();
  const location = await processApi(serverPort, key, 'POST', '/v1/private-locations', {
    name: 'Bench',
    slugName: 'bench-startup',
  });
  if (location.status !== 201 && location.status !== 200)
    throw new Error(`POST /v1/private-locations: ${location.status} ${JSON.stringify(location.body)}`);
  /** Agents started one after another against `apiUrl`, each with its own data folder. */
  const startAgents = async (name: string, apiUrl: string, env: Record<string, string> = {}) => {
    const started = [];
    for (let i = 0; i < Math.min(RUNS, 5); i++) {
      started.push(
        await agentStart({
          API_KEY: location.body.keys[0].rawKey,
          API_URL: apiUrl,
          AGENT_DATA_DIR: join(work, `${name}-${i}`),
          LOG_LEVEL: 'WARN',
          ...env,
        }),
      );
    }
    return started;
  };
  const agents = await startAgents('agent', `http://127.0.0.1:${serverPort}`);
  // The same over HTTPS: the agent then also holds TLS and the certificates it trusts (Node.js's own, and this one).
  const certificate = selfSignedCertificate();
  const caFile = join(work, 'ca.pem');
  await writeFile(caFile, certificate.cert);
  proxy = await tlsProxy(serverPort, certificate.key, certificate.cert);
  const proxyPort = (proxy.address() as AddressInfo).port;
  const tlsAgents = await startAgents('agent-tls', `https://127.0.0.1:${proxyPort}`, {
    NODE_EXTRA_CA_CERTS: caFile,
  });
  rows.push({
    what: 'vantage agent, spawn to ready',
    value: median(agents.map((a) => a.ready)),
    cpu: median(agents.map((a) => a.cpu)),
    goal: GOALS.agentReady,
    unit: 's',
  });
  rows.push({
    what: 'vantage agent, idle RSS',
    value: median(agents.map((a) => a.idle.total)),
    goal: GOALS.agentIdleMb,
    unit: 'MB',
  });
  const medianSplit = (started: { idle: RssSplit }[]): RssSplit => {
    const of = (part: keyof RssSplit) => median(started.map((a) => a.idle[part]));
    return { total: of('total'), anon: of('anon'), file: of('file'), binary: of('binary') };
  };
  const bareIdle = await bareNodeIdle();
  splits.push(
    splitLine('node -e idling', bareIdle),
    splitLine('vantage agent idling', medianSplit(agents)),
    splitLine('vantage agent over HTTPS idling', medianSplit(tlsAgents)),
  );
  rows.push({
    what: 'vantage agent over HTTPS, idle RSS',
    value: median(tlsAgents.map((a) => a.idle.total)),
    goal: GOALS.agentIdleMb,
    unit: 'MB',
  });
} finally {
  proxy?.close();
  await server?.stop();
  target.close();
  await rm(work, { recursive: true, force: true });
}

console.log(
  `Node.js ${process.version}, median of ${RUNS} runs (the agent: of ${Math.min(RUNS, 5)}); ${floor}; load average ${loadavg()[0]?.toFixed(1)}`,
);
console.log('| what | measured | goal | CPU (user + system) | |');
console.log('|---|---|---|---|---|');
let missed = 0;
for (const row of rows) {
  const met = row.value <= row.goal;
  if (!met) missed++;
  const digits = row.unit === 's' ? 2 : 1;
  const cpu = row.cpu === undefined ? '' : `${row.cpu.toFixed(2)} s`;
  console.log(
    `| ${row.what} | ${row.value.toFixed(digits)} ${row.unit} | ≤ ${row.goal} ${row.unit} | ${cpu} | ${met ? 'met' : 'MISSED'} |`,
  );
}
for (const line of splits) console.log(line);
process.exitCode = missed === 0 ? 0 : 1;

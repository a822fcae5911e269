/**
 * `vantage run` against Prometheus's blackbox_exporter on the same local nginx, in one run, alternating:
 * blackbox_exporter's /probe driven by wrk, then Vantage running 3,000 URL checks, then both again, at
 * concurrency 10 and 50. CPU is read from the kernel for the processes doing the work: blackbox_exporter's
 * (its HTTP serving included) and Vantage's (all its threads). Then the response time Vantage reports on a
 * target answering after 50 ms, against curl's.
 *
 * Goals: Vantage's checks/s ≥ 1.5 × blackbox_exporter's probes/s at both concurrencies, ≤ 0.6 ms CPU per URL
 * check, and the median response time within 1 ms of curl's. Both figures are excluding start-up (as the
 * issue measured: wall time less the time `vantage run` of one check takes); whole-process figures are printed
 * beside them.
 *
 * Needs the Debian packages nginx, wrk and prometheus-blackbox-exporter, and `npm run build`.
 * Run: node --import tsx bench/blackbox.ts [seconds-per-wrk-run] [checks]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { curlSample, medianSample, sampleLine, startDelayedServer } from './curl-timing.js';
import { median, urlChecksFile } from './support.js';

const SECONDS = Number(process.argv[2] ?? 3);
const CHECKS = Number(process.argv[3] ?? 3000);
const CONCURRENCIES = [10, 50];
const ROUNDS = 2;
const GOAL_RATIO = 1.5;
const GOAL_CPU_MS = 0.6;
const ACCURACY_RUNS = 20;
const DELAY_MS = 50;

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const TOOLS = ['nginx', 'wrk', 'prometheus-blackbox-exporter'];
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing.length > 0 || !existsSync(cli)) {
  console.error(
    missing.length > 0
      ? `needs ${missing.join(', ')}: apt-get install -y nginx wrk prometheus-blackbox-exporter`
      : 'needs the build: npm run build',
  );
  process.exit(2);
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const dir = mkdtempSync(join(tmpdir(), 'vantage-blackbox-'));
const children: { kill: () => unknown }[] = [];
const cleanUp = () => {
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
};
process.once('exit', cleanUp);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(50);
  }
  throw new Error(`${url} did not answer`);
}

/** CPU milliseconds a process has used so far (user + system), from /proc. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

const nginxPort = await freePort();
const target = `http://127.0.0.1:${nginxPort}/`;
writeFileSync(
  join(dir, 'nginx.conf'),
  `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${nginxPort}; location / { return 200 "ok\\n"; } }
}
`,
);
children.push(
  spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' }),
);
await waitFor(target);

const blackboxPort = await freePort();
writeFileSync(
  join(dir, 'blackbox.yml'),
  'modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n    http:\n      preferred_ip_protocol: ip4\n',
);
const blackbox = spawn(
  'prometheus-blackbox-exporter',
  [`--config.file=${join(dir, 'blackbox.yml')}`, `--web.listen-address=127.0.0.1:${blackboxPort}`],
  { stdio: ['ignore', 'ignore', 'ignore'] },
);
children.push(blackbox);
const probeUrl = `http://127.0.0.1:${blackboxPort}/probe?target=${encodeURIComponent(target)}&module=http_2xx`;
await waitFor(`http://127.0.0.1:${blackboxPort}/-/healthy`);
const probe = await (await fetch(probeUrl)).text();
if (!/^probe_success 1$/m.test(probe)) throw new Error(`blackbox_exporter's probe failed:\n${probe}`);

interface Measure {
  count: number;
  seconds: number;
  cpuMs: number;
}

/** wrk on blackbox_exporter's /probe for SECONDS; CPU of blackbox_exporter only. */
function blackboxRun(concurrency: number): Measure {
  const before = cpuMsOf(blackbox.pid as number);
  const wrk = execFileSync('wrk', [
    `-t${Math.min(2, concurrency)}`,
    `-c${concurrency}`,
    `-d${SECONDS}s`,
    probeUrl,
  ]).toString();
  const cpuMs = cpuMsOf(blackbox.pid as number) - before;
  const done = /(\d+) requests in ([\d.]+)(m?s)/.exec(wrk);
  if (!done) throw new Error(`cannot read wrk's output:\n${wrk}`);
  if (/Non-2xx/.test(wrk)) throw new Error(`blackbox_exporter answered errors:\n${wrk}`);
  const seconds = Number(done[2]) / (done[3] === 'ms' ? 1000 : 1);
  return { count: Number(done[1]), seconds, cpuMs };
}

/** One `vantage run`, timed by the shell that waits for it: wall seconds and CPU of the process and its threads. */
function vantageRun(file: string, concurrency: number, expected: number): Measure {
  const script = `s=$(date +%s%N); node "$0" run "$1" --concurrency "$2" > "$3"; code=$?; e=$(date +%s%N); times; echo "wall $(( (e - s) / 1000 ))"; exit $code`;
  const out = join(dir, 'vantage-out.txt');
  const shell = spawnSync('bash', ['-c', script, cli, file, String(concurrency), out], { encoding: 'utf8' });
  const report = readFileSync(out, 'utf8');
  if (shell.status !== 0 || !report.includes(`${expected} passed`)) {
    throw new Error(`vantage run failed (${shell.status}):\n${shell.stderr}\n${report.slice(-2000)}`);
  }
  // `times` prints the shell's own user/system times, then its children's.
  const [, childTimes = ''] = shell.stdout.trim().split('\n');
  const [user = 0, system = 0] = [...childTimes.matchAll(/(\d+)m([\d.]+)s/g)].map(
    (m) => (Number(m[1]) * 60 + Number(m[2])) * 1000,
  );
  const wall = Number(/wall (\d+)/.exec(shell.stdout)?.[1]) / 1e6;
  return { count: expected, seconds: wall, cpuMs: user + system };
}

const many = urlChecksFile(dir, 'nginx', CHECKS, target);
const one = urlChecksFile(dir, 'one', 1, target);

// Start-up: `vantage run` of one check, the median of three.
vantageRun(one, 1, 1);
const starts = [1, 2, 3].map(() => vantageRun(one, 1, 1));
const start = {
  seconds: median(starts.map((s) => s.seconds)),
  cpuMs: median(starts.map((s) => s.cpuMs)),
};
console.log(
  `vantage run of one URL check (start-up): ${(start.seconds * 1000).toFixed(0)} ms wall, ${start.cpuMs.toFixed(0)} ms CPU`,
);

const sum = (measures: Measure[]): Measure => ({
  count: measures.reduce((n, m) => n + m.count, 0),
  seconds: measures.reduce((n, m) => n + m.seconds, 0),
  cpuMs: measures.reduce((n, m) => n + m.cpuMs, 0),
});
const fmt = (n: number, digits = 0) => n.toFixed(digits);

const missed: string[] = [];
for (const concurrency of CONCURRENCIES) {
  const probes: Measure[] = [];
  const runs: Measure[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    probes.push(blackboxRun(concurrency));
    runs.push(vantageRun(many, concurrency, CHECKS));
  }
  const bb = sum(probes);
  const va = sum(runs);
  const bbRate = bb.count / bb.seconds;
  const wholeRate = va.count / va.seconds;
  const netSeconds = va.seconds - ROUNDS * start.seconds;
  const netCpuMs = va.cpuMs - ROUNDS * start.cpuMs;
  const netRate = va.count / netSeconds;
  const netCpuPerCheck = netCpuMs / va.count;
  const ratio = netRate / bbRate;
  console.log(`\nconcurrency ${concurrency}, ${ROUNDS} rounds alternating:`);
  console.log(
    `  blackbox_exporter ${fmt(bbRate)} probes/s, ${fmt(bb.cpuMs / bb.count, 3)} ms CPU per probe (wrk, ${SECONDS} s per round)`,
  );
  console.log(
    `  vantage run       ${fmt(netRate)} checks/s, ${fmt(netCpuPerCheck, 3)} ms CPU per check, excluding start-up (the goal's figure)`,
  );
  console.log(
    `                    ${fmt(wholeRate)} checks/s, ${fmt(va.cpuMs / va.count, 3)} ms CPU per check, whole process (${CHECKS} checks per round)`,
  );
  console.log(
    `  ratio vantage/blackbox: ${fmt(ratio, 2)} excluding start-up, ${fmt(wholeRate / bbRate, 2)} whole process (goal ≥ ${GOAL_RATIO})`,
  );
  if (ratio < GOAL_RATIO) missed.push(`ratio at concurrency ${concurrency}`);
  if (netCpuPerCheck > GOAL_CPU_MS) missed.push(`CPU per check at concurrency ${concurrency}`);
}

// Timing accuracy through `vantage run`, against curl, on a target answering after 50 ms.
const slow = await startDelayedServer(DELAY_MS);
children.push({ kill: slow.stop });
const WARM_UP = 5;
const slowFile = urlChecksFile(dir, 'slow', WARM_UP + ACCURACY_RUNS, slow.url);
// curl half before and half after Vantage's run, so both see the machine's load alike.
const curlSamples = [];
for (let i = 0; i < ACCURACY_RUNS / 2; i++) curlSamples.push(await curlSample(slow.url));
const json = spawnSync('node', [cli, 'run', slowFile, '--concurrency', '1', '--reporter', 'json'], {
  encoding: 'utf8',
});
for (let i = 0; i < ACCURACY_RUNS / 2; i++) curlSamples.push(await curlSample(slow.url));
// The first checks of a fresh process run cold code, as the first requests of http-vs-curl.ts's warm-up do.
const sessions = json.stdout
  .trim()
  .split('\n')
  .slice(WARM_UP)
  .map((line) => JSON.parse(line) as { results: { responseTime: number }[] });
const vantageTotal = median(sessions.map((s) => s.results.at(-1)?.responseTime ?? Number.NaN));
const curlMedian = medianSample(curlSamples);
const difference = vantageTotal - curlMedian.total;
console.log(`\nresponse time on a ${DELAY_MS} ms target, medians of ${ACCURACY_RUNS}:`);
console.log(`vantage  total ${vantageTotal.toFixed(3)} ms`);
console.log(sampleLine('curl', curlMedian));
console.log(`difference ${difference >= 0 ? '+' : ''}${difference.toFixed(3)} ms (goal: within 1 ms)`);
if (!(Math.abs(difference) <= 1)) missed.push('timing accuracy');

console.log(missed.length === 0 ? '\nevery goal met' : `\nmissed: ${missed.join(', ')}`);
cleanUp();
process.exit(missed.length === 0 ? 0 : 1);

/**
 * Instructions per URL check of `vantage run`, counted by valgrind's callgrind: the user-space instructions of the
 * process and all its threads (V8's compilers and collector included, the kernel's work not), for a run of N checks
 * less a run of one, divided by N − 1. Unlike time on a shared virtual machine, the count moves by about 0.1 % from
 * one run to the next at 500 checks and a few percent at 3,000 (where V8's background compiles land differs), so
 * two builds compare in a few runs where their times would need dozens. It is a guide, not a goal: an instruction
 * that misses the cache costs more than one that does not, so a change it favours is then timed
 * (bench/blackbox.ts).
 * Needs the Debian package valgrind, and each build's `npm run build`. Slow: about 40 s per 1,000 checks.
 * Run: npx tsx bench/instructions.ts [checks, default 500] [runs, default 3] [project folder…, default this one]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { urlChecksFile } from './support.js';

const CHECKS = Number(process.argv[2] ?? 500);
const RUNS = Number(process.argv[3] ?? 3);
const here = fileURLToPath(new URL('..', import.meta.url));
const builds = process.argv.length > 4 ? process.argv.slice(4).map((folder) => resolve(folder)) : [here];

if (spawnSync('sh', ['-c', 'command -v valgrind']).status !== 0) {
  console.error('needs valgrind: apt-get install -y valgrind');
  process.exit(2);
}

const target = createServer((_request, response) => response.end('ok\n'));
await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
const { port } = target.address() as { port: number };
const dir = mkdtempSync(join(tmpdir(), 'vantage-instructions-'));
const url = `http://127.0.0.1:${port}/`;
const one = urlChecksFile(dir, 'check', 1, url);
const many = urlChecksFile(dir, 'check', CHECKS, url);

/** The instructions callgrind counted for one `vantage run` of `file` by the build in `folder`. */
function instructions(folder: string, file: string): Promise<number> {
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--smc-check=all-non-file'];
  const cli = join(folder, 'dist/cli/main.js');
  const child = spawn('valgrind', [...args, process.execPath, cli, 'run', file, '--concurrency', '10'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((done, fail) =>
    child.on('close', (status) => {
      const counted = /Collected : (\d+)/.exec(stderr);
      if (status !== 0 || !counted)
        fail(new Error(`vantage run under callgrind failed (${status}):\n${stderr}`));
      else done(Number(counted[1]));
    }),
  );
}

const millions = (n: number) => `${(n / 1e6).toFixed(0)} M`;
console.log(`instructions per URL check, ${CHECKS} checks at concurrency 10 less one check, ${RUNS} runs`);
for (const folder of builds) {
  const base = await instructions(folder, one);
  const perCheck: number[] = [];
  for (let run = 0; run < RUNS; run++)
    perCheck.push(((await instructions(folder, many)) - base) / (CHECKS - 1));
  const mean = perCheck.reduce((a, b) => a + b, 0) / perCheck.length;
  const range = `${(Math.min(...perCheck) / 1000).toFixed(0)}–${(Math.max(...perCheck) / 1000).toFixed(0)} k`;
  console.log(`${folder}: ${(mean / 1000).toFixed(0)} k per check (${range}); one check ${millions(base)}`);
}
target.close();
rmSync(dir, { recursive: true, force: true });

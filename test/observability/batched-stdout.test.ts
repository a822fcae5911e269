import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/vantage-command.js';

type Ending = 'exit' | 'crash' | 'end';

/**
 * A process that logs like an agent at a low load, through the agent's stdout: ten lines 5 ms apart, then an ending
 * (`exit`: process.exit at once; `crash`: an uncaught error; `end`: nothing left to do). It counts the writes its stdout took.
 */
const script = (ending: Ending) => `
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
let writes = 0;
const write = fs.write;
fs.write = (...args) => {
  writes += 1;
  return write(...args);
};
const { batchedStdout, createLogger } = await import('${ROOT}src/observability/logger.ts');
const { SecretValues } = await import('${ROOT}src/observability/secret-values.ts');
const log = createLogger({ level: 'INFO', destination: batchedStdout(), secrets: new SecretValues([]) });
for (let i = 0; i < 10; i++) {
  log.info({ i }, 'run finished');
  await sleep(5);
}
await sleep(300);
process.stderr.write(JSON.stringify({ writes }) + '\\n');
log.info('last words');
// What keeps the process alive now that nothing else is left (an unref'd timer does not).
process.stderr.write(JSON.stringify({ keptAlive: process.getActiveResourcesInfo().includes('Timeout') }) + '\\n');
${{ exit: 'process.exit(0);', crash: "throw new Error('crashed');", end: '' }[ending]}
`;

function run(ending: Ending) {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script(ending)],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const lines = child.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { msg: string; i?: number });
  const [counted, alive] = child.stderr.split('\n');
  const { writes } = JSON.parse(counted ?? '{}') as { writes: number };
  const { keptAlive } = JSON.parse(alive ?? '{}') as { keptAlive: boolean };
  return { status: child.status, lines, writes, keptAlive };
}

describe("the agent's stdout", () => {
  it('gathers lines logged close together into one write, and loses none when the process exits at once', () => {
    const { status, lines, writes } = run('exit');
    expect(status).toBe(0);
    expect(lines.map((l) => l.i ?? l.msg)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 'last words']);
    // A write per line (10) before; the lines of one gathering share one.
    expect(writes).toBeLessThanOrEqual(2);
  });

  it('lets a process with nothing left to do end at once, and writes what it holds as it ends', () => {
    const { status, lines, keptAlive } = run('end');
    expect(status).toBe(0);
    expect(keptAlive).toBe(false);
    expect(lines.at(-1)?.msg).toBe('last words');
  });

  it('writes what it holds when the process crashes', () => {
    const { status, lines } = run('crash');
    expect(status).toBe(1);
    expect(lines.at(-1)?.msg).toBe('last words');
  });
});

import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startUpFlagsLeftToUs } from '../../src/cli/start-up-mode.js';
import { ROOT } from '../support/vantage-command.js';

/**
 * A hot function run until V8 would optimize it, while the command loads, and another after: what V8 then reports
 * about each (by name: other code, compiled in the background, may finish compiling at any time).
 */
const SCRIPT = `
import { enterStartUpMode, leaveStartUpMode } from '${ROOT}src/cli/start-up-mode.ts';
function hotWhileLoading(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function hotAfterwards(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
enterStartUpMode();
for (let i = 0; i < 20000; i++) hotWhileLoading(200);
leaveStartUpMode();
// A second of it: time for a background compilation to finish on a loaded machine.
for (const until = Date.now() + 1000; Date.now() < until; ) hotAfterwards(200);
console.log('DONE');
`;

const optimized = (trace: string, name: string) =>
  new RegExp(`completed (optimizing|compiling) [^\\n]*<JSFunction ${name} [^\\n]*(TURBOFAN|MAGLEV)`).test(
    trace,
  );

it('optimizes nothing while the command loads, and optimizes hot code again once it has loaded', () => {
  const child = spawnSync(
    process.execPath,
    ['--trace-opt', '--import', 'tsx', '--input-type=module', '--eval', SCRIPT],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(child.status, child.stderr).toBe(0);
  expect(child.stdout).toContain('DONE');
  expect(optimized(child.stdout, 'hotWhileLoading')).toBe(false);
  expect(optimized(child.stdout, 'hotAfterwards')).toBe(true);
});

it("leaves the user's own V8 settings as given", () => {
  const all = startUpFlagsLeftToUs('').map((flag) => flag.during);
  expect(all).toEqual(['--no-maglev', '--no-turbofan', '--semi-space-growth-factor=1']);
  const left = (userFlags: string) => startUpFlagsLeftToUs(userFlags).map((flag) => flag.during);
  expect(left('--no-opt')).toEqual(['--no-maglev', '--semi-space-growth-factor=1']);
  expect(left('--max-semi-space-size=64 --maglev')).toEqual(['--no-turbofan']);
  expect(left('--max-old-space-size=512 --enable-source-maps')).toEqual(all);
});

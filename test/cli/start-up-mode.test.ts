import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startUpFlagsLeftToUs } from '../../src/cli/start-up-mode.js';
import { ROOT } from '../support/vantage-command.js';

/** A hot function, run until V8 would optimize it, while the command loads and after: what V8 then reports. */
const SCRIPT = `
import { enterStartUpMode, leaveStartUpMode } from '${ROOT}src/cli/start-up-mode.ts';
const spin = (label) => { const hot = new Function('n', 'let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s');
  for (let i = 0; i < 20000; i++) hot(200); console.log(label); };
enterStartUpMode(); console.log('ENTERED'); spin('LOADED'); leaveStartUpMode(); spin('DONE');
`;

it('optimizes nothing while the command loads, and optimizes hot code again once it has loaded', () => {
  const child = spawnSync(
    process.execPath,
    ['--trace-opt', '--import', 'tsx', '--input-type=module', '--eval', SCRIPT],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(child.status, child.stderr).toBe(0);
  const [whileLoading = '', afterwards = ''] = (child.stdout.split('ENTERED')[1] ?? '').split('LOADED');
  expect(afterwards).toContain('DONE');
  expect(whileLoading).not.toMatch(/completed (optimizing|compiling).*(TURBOFAN|MAGLEV)/);
  expect(afterwards).toMatch(/completed (optimizing|compiling).*(TURBOFAN|MAGLEV)/);
});

it("leaves the user's own V8 settings as given", () => {
  const all = startUpFlagsLeftToUs('').map((flag) => flag.during);
  expect(all).toEqual(['--no-maglev', '--no-turbofan', '--semi-space-growth-factor=1']);
  const left = (userFlags: string) => startUpFlagsLeftToUs(userFlags).map((flag) => flag.during);
  expect(left('--no-opt')).toEqual(['--no-maglev', '--semi-space-growth-factor=1']);
  expect(left('--max-semi-space-size=64 --maglev')).toEqual(['--no-turbofan']);
  expect(left('--max-old-space-size=512 --enable-source-maps')).toEqual(all);
});

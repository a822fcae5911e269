// Serves the demo shop on 127.0.0.1 and runs the example checks against it with `vantage run`.
// Usage: node examples/start.mjs [vantage run options…]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDemoTarget } from '../dist/cli/demo/target.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = await startDemoTarget();
console.log(`Demo shop serving on ${target.url}\n`);
const args = process.argv.slice(2);
const child = spawn(
  process.execPath,
  ['dist/cli/main.js', 'run', 'examples/checks.yaml', '--env', `TARGET=${target.url}`, ...args],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', async (code) => {
  await target.close();
  process.exit(code ?? 1);
});

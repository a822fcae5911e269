/**
 * Before the first test: what the suite can provision itself, it provisions — the web app's build, and the script
 * runtimes and check-suite engines of `runtimes/`, from the npm registry (`npm run runtimes`), once. What needs the system is only named:
 * the tests that need it skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findChromium, scriptSettingsFromEnv } from '../src/runtimes/index.js';

/** Every folder `npm run runtimes` installs: the runtimes (`2026.04`, …) and the engines. */
function runtimeFolders(runtimesDir: string): string[] {
  const folders = readdirSync(runtimesDir)
    .filter((name) => /^\d{4}\.\d{2}$/.test(name))
    .map((name) => join(runtimesDir, name));
  const engines = join(runtimesDir, 'engines');
  return [...folders, ...readdirSync(engines).map((name) => join(engines, name))];
}

export default function setup(): void {
  // The web app's pages are served from its build (dist/web): a quick esbuild run keeps it current.
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const { runtimesDir } = scriptSettingsFromEnv({});
  const missing = runtimeFolders(runtimesDir).filter((dir) => !existsSync(join(dir, 'node_modules')));
  if (missing.length > 0) {
    console.log(
      `provisioning the script runtimes once (npm run runtimes): ${missing.length} folder(s) not installed`,
    );
    execFileSync('npm', ['run', 'runtimes', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  if (!findChromium(process.env.CHROMIUM_PATH ?? null)) {
    console.log(
      'no Chromium: the browser tests skip (apt-get install chromium fonts-liberation, or set CHROMIUM_PATH)',
    );
  }
}

/**
 * The check suite of fixtures/suite as the tests run it, without the network: the shop it tests, its bundle,
 * its install command and its variables. Shared by the executor tests and the end-to-end tests.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findEngine, scriptSettingsFromEnv } from '../../../src/runtimes/index.js';
import { playwrightCheck } from '../../server/bundles/support.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const { runtimesDir } = scriptSettingsFromEnv();

/** The node22 engine (CI installs it; without it, outside CI, the suite tests skip). */
export const noEngine = !findEngine('node22', runtimesDir) && !process.env.CI;

/** The shop the suite tests: a heading on `/`, an empty cart on `/cart`. */
export function startShop(): Promise<TestServer> {
  return startHttpServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/cart' ? '<div id="items">0</div>' : '<h1>Shop</h1>');
  });
}

/** Packs the suite into `archive` (.tar.gz), as a user uploads it. */
export async function packSuite(archive: string): Promise<void> {
  await promisify(execFile)('tar', ['-czf', archive, '-C', fixtures, 'suite']);
}

/**
 * The suite's install, without the network: the packages its lockfile pins are copied from the runtime that
 * holds the same Playwright; each install adds a line to the install log.
 */
export const INSTALL = [
  'mkdir -p node_modules/.bin',
  'cp -R "$PW_MODULES/@playwright" "$PW_MODULES/playwright" "$PW_MODULES/playwright-core" node_modules/',
  'ln -s ../@playwright/test/cli.js node_modules/.bin/playwright',
  'echo installed >> "$INSTALL_LOG"',
].join(' && ');

/** The variables the suite and its install need; the install log must be writable by the scripts' user. */
export function suiteVariables(shop: TestServer, installLog: string): { key: string; value: string }[] {
  return [
    { key: 'SHOP_URL', value: shop.origin },
    { key: 'PW_MODULES', value: join(runtimesDir, '2026.04', 'node_modules') },
    { key: 'INSTALL_LOG', value: installLog },
  ];
}

/** The body of a PLAYWRIGHT check (POST /v1/checks/playwright) running the uploaded suite's `tag` tests. */
export function bundledSuiteCheck(options: {
  bundleId: string;
  location: string;
  tag: string;
  shop: TestServer;
  installLog: string;
}) {
  return playwrightCheck(`bundle:${options.bundleId}`, {
    privateLocations: [options.location],
    installCommand: INSTALL,
    pwProjects: ['desktop'],
    pwTags: [options.tag],
    engine: 'node22',
    environmentVariables: suiteVariables(options.shop, options.installLog),
  });
}

import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BrowserVideo, CHROMIUM_ARGS, type RunFolder, type Runtime } from '../../runtimes/index.js';
import { ffmpegBrowsersPath } from '../script/video.js';
import { NO_BROWSER_SCRIPT, runConfigSource } from './run-config.js';

/** The files of a browser or multi-step run. */
export interface BrowserRunFiles {
  config: string;
  report: string;
  events: string;
  /** PLAYWRIGHT_BROWSERS_PATH for videos, or null. */
  browsersPath: string | null;
}

const SPEC_FILE = 'check.spec.ts';

/**
 * Lays out the run's folder: the script as `check.spec.ts` beside the runtime's packages (a link to its
 * node_modules) and the run's Playwright config; the runner's own files (report, page events, the stand-in
 * browser of multi-step runs) in `runner/`.
 */
export async function prepareBrowserRun(
  folder: RunFolder,
  script: string,
  runtime: Runtime,
  browser: { chromium: string | null; video: BrowserVideo; ffmpegPath: string | null },
): Promise<BrowserRunFiles> {
  const internal = join(folder.root, 'runner');
  await mkdir(internal);
  const noBrowser = join(internal, 'no-browser');
  const files = {
    config: join(folder.work, 'playwright.config.cjs'),
    report: join(internal, 'report.json'),
    events: join(internal, 'events.jsonl'),
  };
  await writeFile(join(folder.work, SPEC_FILE), script);
  await symlink(runtime.nodeModules, join(folder.work, 'node_modules'), 'dir');
  await writeFile(noBrowser, NO_BROWSER_SCRIPT);
  await chmod(noBrowser, 0o755);
  const helpers = join(runtime.nodeModules, '@vantage', 'playwright-helpers', 'internal');
  await writeFile(
    files.config,
    runConfigSource({
      specFile: SPEC_FILE,
      reportFile: files.report,
      logReporter: join(helpers, 'log-reporter.js'),
      eventsFile: files.events,
      outputDir: join(folder.work, 'test-results'),
      executablePath: browser.chromium ?? noBrowser,
      args: CHROMIUM_ARGS,
      video: browser.video,
    }),
  );
  const browsersPath = await ffmpegBrowsersPath(
    runtime.nodeModules,
    browser.ffmpegPath,
    join(internal, 'browsers'),
  );
  return { ...files, browsersPath };
}

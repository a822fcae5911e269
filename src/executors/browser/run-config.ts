import type { BrowserVideo } from '../../runtimes/index.js';

/** The Playwright config of one browser or multi-step run, written into the run's folder. */
export interface RunConfig {
  /** The script's file name, in the folder of the config. */
  specFile: string;
  reportFile: string;
  /** The reporter that writes the run's log (the runtime's helpers package has it). */
  logReporter: string;
  /** Where the pages' console messages, errors and failed requests are recorded. */
  eventsFile: string;
  outputDir: string;
  /** The browser; for a multi-step run, a stand-in that refuses to start. */
  executablePath: string;
  args: readonly string[];
  video: BrowserVideo;
}

/**
 * The config as CommonJS source. One worker, no retries (the check's retry strategy does that), no Playwright
 * timeouts (the run's execution limit ends it), a screenshot on failure and a trace of every test; the JSON
 * reporter, whose file the runner reads, and the log reporter.
 */
export function runConfigSource(config: RunConfig): string {
  const use = {
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'on',
    video: config.video,
    launchOptions: { executablePath: config.executablePath, args: config.args },
  };
  const settings = {
    testDir: '.',
    testMatch: [config.specFile],
    outputDir: config.outputDir,
    workers: 1,
    retries: 0,
    timeout: 0,
    globalTimeout: 0,
    preserveOutput: 'always',
    reporter: [['json', { outputFile: config.reportFile }], [config.logReporter]],
    use,
  };
  return [
    "'use strict';",
    `require('@vantage/playwright-helpers/internal/page-events').recordPageEvents(${JSON.stringify(config.eventsFile)});`,
    `module.exports = ${JSON.stringify(settings, null, 2)};`,
    '',
  ].join('\n');
}

export const NO_BROWSER_MESSAGE =
  'MULTI_STEP checks run without a browser: use the request fixture, not page, context or browser';

/** The stand-in browser of a multi-step run: any attempt to start a browser fails, saying why. */
export const NO_BROWSER_SCRIPT = `#!/bin/sh
echo "${NO_BROWSER_MESSAGE}" >&2
exit 1
`;

/** Playwright's launch error of the stand-in (its whole command line) cut down to the reason. */
export function shortenNoBrowserError(error: string): string {
  const at = error.indexOf('Error: browserType.launch');
  return at >= 0 && error.includes(NO_BROWSER_MESSAGE) ? `${error.slice(0, at)}${NO_BROWSER_MESSAGE}` : error;
}

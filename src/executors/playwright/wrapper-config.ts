import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CHROMIUM_ARGS } from '../../runtimes/index.js';

/** What the runner adds to the suite's own Playwright config. */
export interface WrapperConfig {
  /** The suite's config, as named by the check (`playwright.config.ts`). */
  userConfigFile: string;
  reportFile: string;
  htmlReportDir: string;
  logReporter: string;
  executablePath: string;
  args: readonly string[];
}

/**
 * A config placed beside the suite's own that imports it and changes only what running here needs: the
 * reporters (JSON for the result, HTML as an artifact, the log) and, for Chromium projects that name no
 * browser executable, the system's Chromium. Relative paths of the suite's config keep their meaning.
 */
function wrapperConfigSource(config: WrapperConfig): string {
  const browser = { executablePath: config.executablePath, args: config.args };
  const reporter = [
    ['json', { outputFile: config.reportFile }],
    ['html', { outputFolder: config.htmlReportDir, open: 'never' }],
    [config.logReporter],
  ];
  return `// Written by the runner: the suite's config with this machine's browser and the runner's reporters.
import userConfig from ${JSON.stringify(`./${basename(config.userConfigFile)}`)};

const browser = ${JSON.stringify(browser)};
const config: any = userConfig ?? {};

function withBrowser(use: any, always: boolean): any {
  const given = use ?? {};
  if (!always && !given.launchOptions && !given.channel) return given;
  if (given.browserName && given.browserName !== 'chromium') return given;
  if (given.channel && !String(given.channel).startsWith('chromium')) return given;
  const { channel, ...rest } = given;
  const launchOptions = given.launchOptions ?? {};
  return {
    ...rest,
    launchOptions: {
      ...launchOptions,
      executablePath: launchOptions.executablePath ?? browser.executablePath,
      args: [...(launchOptions.args ?? []), ...browser.args],
    },
  };
}

export default {
  ...config,
  use: withBrowser(config.use, true),
  ...(Array.isArray(config.projects)
    ? { projects: config.projects.map((project: any) => ({ ...project, use: withBrowser(project.use, false) })) }
    : {}),
  reporter: ${JSON.stringify(reporter)},
};
`;
}

/** The runner's config for a suite, written beside the suite's own; the report files go to `runnerDir`. */
export async function writeWrapperConfig(
  userConfigFile: string,
  runnerDir: string,
  options: { chromium: string | null; logReporter: string },
): Promise<{ wrapper: string; report: string; html: string }> {
  const files = {
    wrapper: join(dirname(userConfigFile), `vantage-run-${randomBytes(4).toString('hex')}.config.ts`),
    report: join(runnerDir, 'report.json'),
    html: join(runnerDir, 'html-report'),
  };
  const source = wrapperConfigSource({
    userConfigFile,
    reportFile: files.report,
    htmlReportDir: files.html,
    logReporter: options.logReporter,
    executablePath: options.chromium ?? 'chromium',
    args: CHROMIUM_ARGS,
  });
  await writeFile(files.wrapper, source);
  return files;
}

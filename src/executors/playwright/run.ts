import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlaywrightCheck } from '../../checks/index.js';
import {
  availableEngines,
  enginePath,
  findChromium,
  findEngine,
  openRunSpace,
  RunLog,
  runMarker,
  runSandboxed,
  type ScriptSettings,
  scriptEnvironment,
  userCacheFolder,
} from '../../runtimes/index.js';
import { collectAttachments } from '../script/artifacts.js';
import { scriptAttempt, scriptNotRun } from '../script/attempt.js';
import { identityOf } from '../script/identity.js';
import { readReport, summarizeReport } from '../script/report.js';
import { ffmpegBrowsersPath } from '../script/video.js';
import type { Attempt, ExecutionContext, LocalArtifact } from '../types.js';
import { unpackBundle } from './bundle.js';
import { testCommandLine } from './command.js';
import { DependencyCache } from './dependency-cache.js';
import { HTML_REPORT_NAME, packHtmlReport } from './html-report.js';
import { installDependencies } from './install.js';
import { writeWrapperConfig } from './wrapper-config.js';

/** The log reporter lives in the helpers package of the runtimes folder; a suite's own packages lack it. */
function logReporterOf(runtimesDir: string): string {
  return join(runtimesDir, 'packages', 'playwright-helpers', 'internal', 'log-reporter.js');
}

/**
 * Runs a check suite: its code bundle unpacked into a run folder, its dependencies installed (or restored from
 * the cache), then `<testCommand> --config … [--project …] [--grep …]` with the chosen engine. The result is
 * made of Playwright's JSON report; the HTML report, traces, videos and screenshots are its artifacts.
 */
export async function runCheckSuite(
  check: PlaywrightCheck,
  context: ExecutionContext,
  options: ScriptSettings,
): Promise<Attempt> {
  const kind = 'PLAYWRIGHT';
  const startedAt = new Date();
  const engine = findEngine(check.engine, options.runtimesDir);
  if (!engine) {
    const have = availableEngines(options.runtimesDir).join(', ') || 'none is installed';
    return scriptNotRun(
      kind,
      `PLAYWRIGHT check cannot run: engine ${check.engine} is not available here (available: ${have})`,
      { permanent: true },
    );
  }

  const space = await openRunSpace(options, context.runId, context.signal);
  if (!space) return scriptNotRun(kind, 'the run was stopped');
  const { folder, user } = space;
  const log = new RunLog();
  let artifacts: LocalArtifact[] = [];
  const notRun = (setupError: string) =>
    scriptAttempt({ kind, startedAt, exit: null, summary: null, log, artifacts, setupError });
  try {
    const runner = join(folder.root, 'runner');
    await mkdir(runner);
    let projectDir: string;
    try {
      projectDir = await unpackBundle(
        check.codeBundlePath,
        join(folder.work, 'project'),
        runner,
        context.signal,
      );
    } catch (error) {
      return notRun(context.signal.aborted ? 'the run was stopped' : (error as Error).message);
    }
    const userConfig = join(projectDir, check.playwrightConfigPath);
    if (!existsSync(userConfig)) return notRun(`the code bundle has no ${check.playwrightConfigPath}`);

    const env = scriptEnvironment(identityOf(check, context, engine.id), context.variables.toEnv(), folder, {
      path: await enginePath(engine, runner),
      defaults: { npm_config_cache: await userCacheFolder(options.cacheDir, 'npm', user) },
      extra: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    });
    const sandbox = {
      env,
      marker: runMarker(folder),
      signal: context.signal,
      memoryLimitMb: options.memoryLimitMb,
      user,
    };
    await space.handOver();
    const installError = await installDependencies({
      projectDir,
      installCommand: check.installCommand,
      engine: engine.id,
      // Another user's scripts get copies: hard links would let them change the cached files.
      cache: new DependencyCache(join(options.cacheDir, 'suites'), { link: user === null }),
      log,
      sandbox,
    });
    if (installError) return notRun(installError);

    const files = await writeWrapperConfig(userConfig, runner, {
      chromium: findChromium(options.chromiumPath),
      logReporter: logReporterOf(options.runtimesDir),
    });
    const browsers = await ffmpegBrowsersPath(
      join(projectDir, 'node_modules'),
      options.ffmpegPath,
      join(runner, 'browsers'),
    );
    await space.handOver();
    const line = testCommandLine(check.testCommand, files.wrapper, check.pwProjects, check.pwTags);
    log.add('INFO', `$ ${line.replace(files.wrapper, check.playwrightConfigPath)}`);
    const exit = await runSandboxed({
      ...sandbox,
      env: browsers ? { ...env, PLAYWRIGHT_BROWSERS_PATH: browsers } : env,
      file: '/bin/sh',
      args: ['-c', line],
      cwd: projectDir,
      log,
    });
    const report = exit.stopped ? null : await readReport(files.report);
    const summary = report ? summarizeReport(report, `${projectDir}/`) : null;
    artifacts = await collectAttachments(
      summary?.attachments ?? [],
      folder.artifacts,
      new Set([HTML_REPORT_NAME]),
    );
    const html = exit.stopped ? null : await packHtmlReport(files.html, folder.artifacts);
    if (html) artifacts.push(html);
    return scriptAttempt({ kind, startedAt, exit, summary, log, artifacts });
  } finally {
    await space.close(artifacts.length > 0);
  }
}

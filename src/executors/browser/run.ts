import type { BrowserCheck, MultiStepCheck } from '../../checks/index.js';
import {
  chromiumMissing,
  findChromium,
  HOST_NODE_BIN,
  nodeHeapFlag,
  openRunSpace,
  RunLog,
  resolveRuntime,
  runMarker,
  runSandboxed,
  type ScriptSettings,
  scriptEnvironment,
} from '../../runtimes/index.js';
import { collectAttachments, collectSavedPictures } from '../script/artifacts.js';
import { scriptAttempt, scriptNotRun } from '../script/attempt.js';
import { identityOf } from '../script/identity.js';
import { readReport, summarizeReport } from '../script/report.js';
import type { Attempt, ExecutionContext } from '../types.js';
import { addPageEvents } from './page-events.js';
import { prepareBrowserRun } from './prepare.js';
import { shortenNoBrowserError } from './run-config.js';

/**
 * Runs a browser or multi-step script as a Playwright test on the check's runtime: in a run folder of its
 * own, sandboxed, with a fresh browser (none for multi-step) and the check's variables as its environment.
 */
export async function runBrowserScript(
  check: BrowserCheck | MultiStepCheck,
  context: ExecutionContext,
  options: ScriptSettings,
): Promise<Attempt> {
  const kind = check.checkType;
  const startedAt = new Date();
  const runtime = resolveRuntime(check.runtimeId, options.runtimesDir);
  if (runtime instanceof Error) {
    return scriptNotRun(kind, `${kind} check cannot run: ${runtime.message}`, { permanent: true });
  }
  const chromium = kind === 'BROWSER' ? findChromium(options.chromiumPath) : null;
  if (kind === 'BROWSER' && !chromium) {
    return scriptNotRun(kind, `BROWSER check cannot run: ${chromiumMissing(options.chromiumPath)}`, {
      permanent: true,
    });
  }

  const space = await openRunSpace(options, context.runId, context.signal);
  if (!space) return scriptNotRun(kind, 'the run was stopped');
  const { folder, user } = space;
  let attempt: Attempt | undefined;
  try {
    const files = await prepareBrowserRun(folder, check.script, runtime, { chromium, ...options });
    const env = scriptEnvironment(identityOf(check, context, runtime.id), context.variables.toEnv(), folder, {
      path: [HOST_NODE_BIN],
      extra: files.browsersPath ? { PLAYWRIGHT_BROWSERS_PATH: files.browsersPath } : {},
    });
    await space.handOver();
    const log = new RunLog();
    const exit = await runSandboxed({
      file: process.execPath,
      args: [nodeHeapFlag(options.memoryLimitMb), runtime.playwrightCli, 'test', '--config', files.config],
      cwd: folder.work,
      env,
      marker: runMarker(folder),
      log,
      signal: context.signal,
      memoryLimitMb: options.memoryLimitMb,
      user,
    });
    const report = exit.stopped ? null : await readReport(files.report);
    const summary = report ? summarizeReport(report, `${folder.work}/`) : null;
    if (summary && kind === 'MULTI_STEP') {
      summary.errors = summary.errors.map(shortenNoBrowserError);
      for (const test of summary.tests) test.errors = test.errors.map(shortenNoBrowserError);
    }
    await addPageEvents(files.events, log);
    const taken = new Set<string>();
    const artifacts = [
      ...(await collectAttachments(summary?.attachments ?? [], folder.artifacts, taken)),
      ...(await collectSavedPictures(folder.work, folder.artifacts, taken)),
    ];
    attempt = scriptAttempt({ kind, startedAt, exit, summary, log, artifacts });
    return attempt;
  } finally {
    await space.close((attempt?.artifacts?.length ?? 0) > 0);
  }
}

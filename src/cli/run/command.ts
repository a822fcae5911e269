import { setMaxListeners } from 'node:events';
import {
  type Asset,
  type CheckSession,
  detailOf,
  formatFileProblem,
  MIN_SUBSTRING_SECRET_LENGTH,
  shortSecretWarning,
  type Variable,
  VariableSet,
} from '../../checks/index.js';
import { parseEnv, problemLines } from '../../config/env.js';
import { CheckPool, POOLED_KINDS, poolShape } from '../../executors/pool/index.js';
import { afterIoPoll } from '../../executors/run/after-io-poll.js';
import { runCheckSession } from '../../executors/run/session.js';
// Not the runtimes' index: it loads the script sandbox, which only script checks need (their executors load it).
import { scriptUsersWarning } from '../../runtimes/sandbox/script-users.js';
import { SANDBOX_ENV, type SandboxEnv, scriptSettingsOf } from '../../runtimes/settings.js';
import { REPORTERS, type ReporterName } from '../reporters/index.js';
import { leaveStartUpMode } from '../start-up-mode.js';
import { batchedOutput } from './batched-output.js';
import { EXIT } from './exit.js';
import { loadCheckFiles, parseEnvAssignment } from './load.js';

export interface RunCommandOptions {
  reporter: ReporterName;
  output?: string;
  env: string[];
  grep?: string;
  concurrency: number;
  /**
   * Worker threads for URL, API, TCP and DNS checks: none by default (they measured slower on a busy 2-core
   * machine, docs/performance.md); `auto` sizes them by poolShape, the main thread taking a share too.
   */
  threads?: number | 'auto';
  location: string;
  /** Where screenshots, traces, videos and reports of script checks are kept. */
  artifactsDir?: string;
}

const FAILING = new Set(['FAILED', 'TIMED_OUT']);

export class UsageError extends Error {}

/**
 * `vantage run FILE…`: validates the sandbox's environment settings and every check of every file (nothing runs
 * if any is invalid), runs the matching ones under the concurrency limit, and reports each session as it finishes.
 * @returns the exit status
 */
export async function runCommand(
  files: readonly string[],
  options: RunCommandOptions,
  io: { stdout: (text: string) => void; stderr: (text: string) => void; signal?: AbortSignal },
): Promise<number> {
  // Loaded: what comes now (validating the files, running the checks) may run many times.
  leaveStartUpMode();
  const sandbox = parseEnv(SANDBOX_ENV, process.env);
  if (!sandbox.ok) {
    io.stderr(problemLines(sandbox.problems));
    return EXIT.unusableInput;
  }
  let overrides: Variable[];
  let grep: RegExp | undefined;
  try {
    overrides = options.env.map(parseEnvAssignment);
    grep = options.grep === undefined ? undefined : new RegExp(options.grep, 'i');
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new UsageError('--concurrency: must be a whole number of at least 1');
    }
  } catch (error) {
    io.stderr(`${error instanceof SyntaxError ? `--grep: ${error.message}` : (error as Error).message}\n`);
    return EXIT.unusableInput;
  }

  const { checks, problems } = await loadCheckFiles(files);
  if (problems.length > 0) {
    io.stderr(
      `Nothing was run: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the check files\n`,
    );
    for (const p of problems) io.stderr(`  ${formatFileProblem(p)}\n`);
    return EXIT.unusableInput;
  }
  const selected = grep ? checks.filter((c) => grep.test(c.name)) : checks;
  if (selected.length === 0) {
    io.stderr(
      grep ? `No check name matches --grep ${JSON.stringify(options.grep)}\n` : 'The files hold no checks\n',
    );
    return EXIT.unusableInput;
  }

  const stdout = batchedOutput(io.stdout);
  let reporter: ReturnType<(typeof REPORTERS)[ReporterName]>;
  try {
    reporter = REPORTERS[options.reporter]({ write: stdout.write, output: options.output });
  } catch (error) {
    io.stderr(`${(error as Error).message}\n`);
    return EXIT.unusableInput;
  }

  const isolation = isolationWarning(sandbox.values);
  if (isolation) io.stderr(`warning: ${isolation}\n`);
  const shortSecrets = new Set(
    selected.flatMap((check) =>
      new VariableSet(overrides, check.environmentVariables).shortSecretKeys(MIN_SUBSTRING_SECRET_LENGTH),
    ),
  );
  for (const key of shortSecrets) io.stderr(`warning: ${shortSecretWarning(key)}\n`);

  // Sessions are not kept here: a reporter keeps what it needs (the junit one all, the others none).
  let failing = false;
  let keptFiles = false;
  const report = (session: CheckSession) => {
    failing ||= FAILING.has(session.status);
    // Only script kinds leave files: the others' results are not looked through.
    keptFiles ||=
      !POOLED_KINDS.has(session.checkType) &&
      session.results.some((r) => (detailOf(r)?.assets as Asset[] | undefined)?.length);
    reporter.onSession(session);
  };
  const sessionOptions = { runLocation: options.location, runSource: 'TEST_NO_RECORD', overrides } as const;
  const pooled = selected.filter((check) => POOLED_KINDS.has(check.checkType));
  const { threads, mainThread } = poolShape(options.threads ?? 0, options.concurrency, pooled.length);
  // The pooled checks first, in threads, then the others here: --concurrency holds for each batch.
  const [inThreads, here] =
    threads > 0 ? [pooled, selected.filter((c) => !POOLED_KINDS.has(c.checkType))] : [[], selected];
  if (inThreads.length > 0) {
    const pool = new CheckPool({ threads, mainThread, concurrency: options.concurrency });
    const cancel = () => pool.cancelAll();
    io.signal?.addEventListener('abort', cancel, { once: true });
    try {
      await Promise.all(inThreads.map((check) => pool.runSession(check, sessionOptions).then(report)));
    } finally {
      io.signal?.removeEventListener('abort', cancel);
      await pool.close();
    }
  }
  // Every running session listens to the one cancel signal.
  if (io.signal) setMaxListeners(options.concurrency + 10, io.signal);
  await inLanes(here, options.concurrency, async (check) =>
    report(
      await runCheckSession(check, {
        ...sessionOptions,
        signal: io.signal,
        artifactsDir: options.artifactsDir,
      }),
    ),
  );
  await reporter.onEnd();
  stdout.flush();
  if (keptFiles && options.artifactsDir)
    io.stderr(`Screenshots, traces and reports are in ${options.artifactsDir}\n`);
  return failing ? EXIT.failed : EXIT.passed;
}

/** Runs `run` over the items in their order, `concurrency` at a time. */
async function inLanes<T>(
  items: readonly T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      await run(items[next++] as T);
      await afterIoPoll();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

/** Why scripts cannot run as other users, when this was asked for (VANTAGE_SCRIPT_USERS, VANTAGE_USER_SWITCH). */
function isolationWarning(sandbox: SandboxEnv): string | null {
  if (!sandbox.VANTAGE_SCRIPT_USERS && !sandbox.VANTAGE_USER_SWITCH) return null;
  return scriptUsersWarning(scriptSettingsOf(sandbox).scriptUsers);
}

import { Command, InvalidArgumentError, Option } from 'commander';
import { AGENT_ENV_NAMES } from '../agent/env-names.js';
import { SANDBOX_ENV_NAMES } from '../runtimes/env-names.js';
import { SERVER_ENV_NAMES } from '../server/env-names.js';
import { version } from '../version.js';
import { EXIT } from './run/exit.js';

/**
 * `vantage run … | head`: once the reader of stdout is gone, nothing more can be shown, so the command stops there,
 * quietly and at once, as a command killed by SIGPIPE would (exit status 141), instead of dying of an unhandled
 * EPIPE error with a stack trace.
 */
function quitWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(141);
  });
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

function threadCount(value: string): number | 'auto' {
  if (value === 'auto') return value;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number or auto');
  return n;
}

/** The `vantage` command and its subcommands; main.ts parses the command line with it. */
export const program = new Command()
  .name('vantage')
  .description('Synthetic monitoring: run checks from files, or run the agent and the control plane')
  .version(version)
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : EXIT.unusableInput);
  });

program
  .command('run')
  .description('Run the checks of JSON or YAML files on this machine, without a control plane')
  .argument('<files...>', 'files holding a list of checks or {checks: [...]}')
  .addOption(
    new Option('--reporter <name>', 'how results are shown')
      .choices(['list', 'json', 'junit'])
      .default('list'),
  )
  .option('--output <file>', 'file the junit reporter writes')
  .option(
    '--env <KEY=VALUE>',
    'a variable for {{KEY}} placeholders (repeatable)',
    (v, all: string[]) => [...all, v],
    [],
  )
  .option('--grep <pattern>', 'run only checks whose name matches this regular expression')
  .option('--concurrency <n>', 'checks run at once', positiveInteger, 10)
  .option(
    '--threads <n|auto>',
    'worker threads for URL, API, TCP and DNS checks; auto: one per core with the main thread (docs/performance.md)',
    threadCount,
    0,
  )
  .option('--location <name>', 'the run location reported in results', 'local')
  .option(
    '--artifacts-dir <dir>',
    'folder that keeps the screenshots, traces, videos and reports of script checks',
    'vantage-artifacts',
  )
  .addHelpText('after', environmentHelp(SANDBOX_ENV_NAMES, 'docs/browser-checks.md, "Settings"'))
  .action(async (files: string[], options) => {
    const { runCommand } = await import('./run/command.js');
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    quitWhenStdoutCloses();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.exitCode = await runCommand(files, options, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      signal: controller.signal,
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  });

program
  .command('agent')
  .description(
    'Run the agent of a private location: pull checks from the control plane, run them, report the results (configured by environment variables, see README)',
  )
  .addHelpText('after', environmentHelp(AGENT_ENV_NAMES, 'README.md, "Run the agent"'))
  .action(async () => {
    const { agentCommand } = await import('./agent.js');
    await agentCommand();
  });

program
  .command('server')
  .description(
    'Run the control plane: the public API, the scheduler and the agent gateway (configured by environment variables, see README)',
  )
  .addHelpText('after', environmentHelp(SERVER_ENV_NAMES, 'README.md, "Run the control plane"'))
  .action(async () => {
    const { serverCommand } = await import('./server.js');
    process.exitCode = await serverCommand();
  });

program
  .command('dev')
  .description(
    'Run the control plane, one local agent and example checks against a demo shop, all on this machine',
  )
  .addHelpText(
    'after',
    environmentHelp(
      [...new Set([...SERVER_ENV_NAMES, ...AGENT_ENV_NAMES])],
      'README.md, "Run the control plane" and "Run the agent"',
    ),
  )
  .action(async () => {
    const { devCommand } = await import('./dev.js');
    process.exitCode = await devCommand();
  });

/**
 * The environment settings a command reads, wrapped, and where they are described (`where`). Each is checked at
 * start: a bad value stops the command with a line naming it.
 */
function environmentHelp(names: readonly string[], where: string): string {
  const lines: string[] = [];
  let line = ' ';
  for (const name of names) {
    if (line.length + name.length > 100) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name}`;
  }
  lines.push(line);
  return `\nEnvironment, each setting checked at start (${where}, says what each does):\n${lines.join('\n')}\n`;
}

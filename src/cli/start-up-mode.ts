import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const TURBOFAN_ON = '--turbofan';

/**
 * While a command loads, almost everything it runs runs once (module bodies, building the check model's schemas)
 * and almost everything it allocates stays alive. V8's defaults suit the opposite, a program's hot loop: it
 * compiles the busiest start-up functions with its optimizing compilers (Maglev, TurboFan), whose own machine code
 * then becomes resident (pages of the node binary), and it doubles the young generation each time a scavenge finds
 * most of it alive. So until the command has loaded, the optimizing compilers are off and the young generation keeps
 * its initial size; then V8's defaults return, for what runs many times (validating checks, running them). Measured
 * on Node.js 24 (bench/startup.ts): `vantage run` of one check peaks at 64 MB instead of 77, an idle agent (which
 * stays in this mode until its first run) holds 63 MB instead of 70 (docs/performance.md).
 * V8 reads these settings each time it decides, so changing them at run time takes effect. A setting the user gave
 * node (NODE_OPTIONS, node's own flags) is left as given, or given back where main.ts set it first.
 */
const START_UP_FLAGS = [
  { during: '--no-maglev', after: '--maglev', named: /maglev/, setByMain: true },
  { during: '--no-turbofan', after: TURBOFAN_ON, named: /turbofan|--(no-)?opt\b/, setByMain: true },
  {
    during: '--semi-space-growth-factor=1',
    after: '--semi-space-growth-factor=2',
    named: /semi[-_]space/,
    setByMain: false,
  },
];

/** The start-up flags that `userFlags` (node's own flags and NODE_OPTIONS) leave to us. */
export function startUpFlagsLeftToUs(userFlags: string): typeof START_UP_FLAGS {
  return START_UP_FLAGS.filter((flag) => !flag.named.test(userFlags));
}

/**
 * The user's own settings of the flags main.ts sets before this module loads (the compilers off), each as given:
 * they are set again over main's.
 */
export function userSettingsOverMain(userFlags: readonly string[]): string[] {
  const setByMain = START_UP_FLAGS.filter((flag) => flag.setByMain);
  return userFlags.filter(
    (given) => given.startsWith('--') && setByMain.some((flag) => flag.named.test(given)),
  );
}

/**
 * node's own flags and NODE_OPTIONS, less those the image's launcher (scripts/image/vantage) gave node on our behalf
 * and names in VANTAGE_LAUNCHER_FLAGS: start-up flags like ours, set before Node.js's own start-up code runs.
 */
const launcherFlags = new Set((process.env.VANTAGE_LAUNCHER_FLAGS ?? '').split(/\s+/));
const userFlags = [
  ...process.execArgv.filter((given) => !launcherFlags.has(given)),
  ...(process.env.NODE_OPTIONS ?? '').split(/\s+/),
];
const ours = startUpFlagsLeftToUs(userFlags.join(' '));
let loading = false;

/** The flags main.ts sets before anything of ours loads, as a launcher gives them to node. */
const COMPILERS_OFF = START_UP_FLAGS.filter((flag) => flag.setByMain).map((flag) => flag.during);

/**
 * For a long-lived command started by node itself rather than by a launcher: Node.js's own start-up code, before
 * main.js runs, compiles one of its path functions with Maglev when the main module's path is longer than about 30
 * characters, and the compiler's machine code then stays resident (1.5 MB of an idle agent, bench/startup.ts).
 * So node starts again in place (the same process id, arguments and environment) with the compilers off from its
 * first line, as the image's launcher (scripts/image/vantage) starts it, and VANTAGE_LAUNCHER_FLAGS names them so
 * that the start-up mode turns them on once the command has loaded. Returns only where that does not apply: a
 * launcher did it, the user set these flags, or node cannot replace its process (Windows).
 */
export function relaunchWithCompilersOff(): void {
  const leftToUs = ours.filter((flag) => flag.setByMain).length === COMPILERS_OFF.length;
  const node = process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never };
  if (process.env.VANTAGE_LAUNCHER_FLAGS !== undefined || !leftToUs || !node.execve) return;
  const [, main = '', ...args] = process.argv;
  try {
    node.execve(process.execPath, [process.execPath, ...COMPILERS_OFF, ...process.execArgv, main, ...args], {
      ...process.env,
      VANTAGE_LAUNCHER_FLAGS: COMPILERS_OFF.join(' '),
    });
  } catch {
    // The process goes on as it is: the compilers' code costs memory, nothing else.
  }
}

export function enterStartUpMode(): void {
  for (const flag of ours) setFlagsFromString(flag.during);
  for (const given of userSettingsOverMain(userFlags)) setFlagsFromString(given);
  loading = true;
}

/**
 * Back to V8's defaults; once is enough, later calls do nothing. With `turbofan: false`, TurboFan stays off (unless
 * the user set it): Maglev alone compiles the hot code.
 */
export function leaveStartUpMode(options: { turbofan?: boolean } = {}): void {
  if (!loading) return;
  loading = false;
  for (const flag of ours) {
    if (flag.after !== TURBOFAN_ON || options.turbofan !== false) setFlagsFromString(flag.after);
  }
}

/**
 * How far a control plane's heap grows past what it held after a full collection before V8 starts the next one:
 * to twice (a growing factor of 2). V8 picks the factor itself, between 1.1 and 4, from how little of the main
 * thread its collections took so far, and for a server that receives results they take little of it: about 1.3. At
 * 300 runs/s the server then collected its ~58 MB in full every 1–2 s, most of each collection's work marking on
 * V8's helper threads, which that choice does not count: about a third of the server's CPU (docs/control-plane.md,
 * Capacity). Each result batch is a few hundred KB of JSON text and objects that live across the store's
 * statements, so they reach the old generation. The heap peaks higher, by about what it holds live; the process's
 * RSS is mostly the store's (PGlite's memory, or the pool's).
 */
const SERVING_HEAP_GROWTH = { flag: '--heap-growing-percent=100', named: /heap[-_]growing/ };

/** For a command that serves (the control plane): its heap grows as above, unless the user set the factor. */
export function growHeapForServing(): void {
  if (!SERVING_HEAP_GROWTH.named.test(userFlags.join(' '))) setFlagsFromString(SERVING_HEAP_GROWTH.flag);
}

/**
 * A long-lived command that has loaded and now waits (an agent before its first run) holds what loading left: dead
 * objects and half-empty heap pages that V8 neither collects nor returns while nothing allocates, idle or not. One
 * full collection that compacts and gives the empty pages back to the system (V8's "last resort" collection) drops
 * them: 2–3 MB of an idle agent's 63 (bench/startup.ts). V8 offers it only through `gc`, a function it puts in
 * contexts made while --expose-gc is set; the flag is set for the one context that fetches it, and unset after.
 */
export function collectStartUpGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

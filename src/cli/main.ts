#!/usr/bin/env node
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// V8's optimizing compilers go off before the first module of ours loads, so only Node.js's own modules are imported
// statically (those are all loaded before this line runs). Loading even one more file makes Node.js's path code hot
// enough for Maglev, and the compiler's machine code then stays resident (1.5 MB of an idle agent, bench/startup.ts).
// The start-up mode then takes over, and gives the user's own setting of these flags back.
setFlagsFromString('--no-maglev');
setFlagsFromString('--no-turbofan');
const { enterStartUpMode, relaunchWithCompilersOff } = await import('./start-up-mode.js');
// A bare `vantage agent`, the command of every agent container, lives long and idles: it starts node again in place
// when Node.js's own start-up code may already have compiled (see relaunchWithCompilersOff).
const args = process.argv.slice(2);
const bareAgent = args.length === 1 && args[0] === 'agent';
if (bareAgent) relaunchWithCompilersOff();
enterStartUpMode();
const { loadZodInEnglishOnly } = await import('./zod-locales.js');
loadZodInEnglishOnly();

// Each command's module is imported when the command runs, so that a command (and --version, --help) loads only
// what it uses: the server, the store and the browser runtimes take seconds to load on a small machine. A bare
// `vantage agent` takes no options (its settings are environment variables), so it starts without the command-line
// parser, whose modules would stay resident all its life.
if (bareAgent) {
  // Without the compile cache (below): what it reads stays in the process's memory, 0.4–0.6 MB more of an idle
  // agent's anonymous memory with the same V8 heap and code (bench/startup.ts), for 0.01–0.02 s of its start. An
  // agent container's temporary folder starts empty anyway.
  const { agentCommand } = await import('./agent.js');
  await agentCommand();
} else {
  // V8's compiled code of every module is kept on disk (in the temporary folder) and reused by the next start:
  // about a fifth of the start-up on Node.js 22 and later.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { program } = await import('./program.js');
  await program.parseAsync();
}

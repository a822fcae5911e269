import { fileURLToPath } from 'node:url';

/** The repository's root folder, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command line of `vantage <command>`: from source through tsx (tests), or the build in dist/ (benchmarks,
 * after `npm run build`), so that a measurement does not include the transpiler; `nodeFlags` go to node first
 * (V8's flags, --cpu-prof).
 */
export function vantageCommand(
  command: 'server' | 'agent',
  built = false,
  nodeFlags: readonly string[] = [],
): string[] {
  return built
    ? [process.execPath, ...nodeFlags, `${ROOT}dist/cli/main.js`, command]
    : [process.execPath, ...nodeFlags, '--import', 'tsx', `${ROOT}src/cli/main.ts`, command];
}

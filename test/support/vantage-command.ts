import { fileURLToPath } from 'node:url';

/** The repository's root folder, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command line of `vantage <command>`: from source through tsx (tests), or the build in dist/ (benchmarks,
 * after `npm run build`), so that a measurement does not include the transpiler.
 */
export function vantageCommand(command: 'server' | 'agent', built = false): string[] {
  return built
    ? [process.execPath, `${ROOT}dist/cli/main.js`, command]
    : [process.execPath, '--import', 'tsx', `${ROOT}src/cli/main.ts`, command];
}

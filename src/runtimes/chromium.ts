import { accessSync, constants } from 'node:fs';

/** Where Debian, Ubuntu and Chrome's packages put the browser. */
const KNOWN_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * Flags that keep a headless Chromium quiet on a closed network and in a container: no background
 * connections, no component updates, no sync, no QUIC, no GPU (Playwright adds --no-sandbox and --headless).
 */
export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser to run: the configured path when it is executable, else the first known path that is. */
export function findChromium(configured: string | null): string | null {
  if (configured) return executable(configured) ? configured : null;
  return KNOWN_PATHS.find(executable) ?? null;
}

/** Why no browser was found, for the error of a run and the agent's capabilities. */
export function chromiumMissing(configured: string | null): string {
  return configured
    ? `no Chromium at ${configured} (CHROMIUM_PATH)`
    : `no Chromium found at ${KNOWN_PATHS.join(', ')}; install Debian's chromium or set CHROMIUM_PATH`;
}

/** Bounds of one HTTP run. */

/** Decoded body bytes an API check keeps; the rest is not read. */
export const MAX_BODY_BYTES = 26_214_400;

/** Redirects followed at most; one more fails the run. */
export const MAX_REDIRECTS = 10;

/** Safety net for a run whose caller set no deadline: no connection waits longer than the kinds' limit. */
export const SOCKET_TIMEOUT_MS = 30_000;

/** Sent unless the check sets them itself. */
export const DEFAULT_HEADERS: readonly [string, string][] = [
  ['user-agent', 'Vantage/0.1 (synthetic monitoring)'],
  ['accept', '*/*'],
  ['accept-encoding', 'gzip, deflate, br'],
];

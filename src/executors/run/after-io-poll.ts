/**
 * Resolves once the event loop has polled for I/O: the first immediate runs in this turn's check phase, the second
 * in the next turn's, after that turn's poll. A lane of checks waits for it before starting its next check, so
 * that what the last check left behind (the server closing its connection, the reporter's output) is handled before
 * the next check's clock starts, not between that check's connect and the moment its connection is seen to be
 * open: measured on a 50-ms target at concurrency 1, the connect phase went from 0.46–0.54 ms to 0.33–0.36 ms
 * (docs/performance.md). Nor does it slow a busy lane: 3,000 checks took no more time or CPU with it.
 */
export function afterIoPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

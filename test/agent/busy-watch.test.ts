import { expect, it } from 'vitest';
import { whenBusy } from '../../src/agent/busy-watch.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** This thread kept busy for `ms`, in slices of 5 ms between which timers still run. */
async function busyFor(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const slice = Date.now() + 5;
    while (Date.now() < slice) {
      // Work that leaves the event loop no idle time.
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

it('takes a main thread busy for two windows in a row as busy, not one busy spell alone', async () => {
  let busy = false;
  const stop = whenBusy(() => (busy = true), { windowMs: 100, share: 0.8, windows: 2 });
  try {
    // One spell such as loading the run code: a single window busy, then the thread has time again.
    const spell = Date.now() + 150;
    while (Date.now() < spell) {
      // Blocked, as while a module loads.
    }
    await sleep(400);
    expect(busy).toBe(false);
    await busyFor(600);
    expect(busy).toBe(true);
  } finally {
    stop();
  }
});

it('takes one busy window as busy when asked for one', async () => {
  let busy = false;
  const stop = whenBusy(() => (busy = true), { windowMs: 100, share: 0.8 });
  try {
    await busyFor(300);
    expect(busy).toBe(true);
  } finally {
    stop();
  }
});

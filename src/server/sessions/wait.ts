import type { RunEvents } from '../queue/events.js';

export interface WaitOptions<T> {
  read: () => Promise<T | null>;
  finished: (value: T) => boolean;
  events: RunEvents;
  event: 'session-finished' | 'test-session-finished';
  id: string;
  maxWaitMs: number;
  /** How often the store is read again: a session may finish on another replica, which sends no event here. */
  pollMs: number;
}

/**
 * Reads a session until it finished or the wait ran out; wakes early on this server's finish event. Returns
 * null when it does not exist, else the last value read (finished or not).
 */
export async function waitUntilFinished<T>(options: WaitOptions<T>): Promise<T | null> {
  const deadline = Date.now() + options.maxWaitMs;
  for (;;) {
    const value = await options.read();
    if (value === null || options.finished(value)) return value;
    const left = deadline - Date.now();
    if (left <= 0) return value;
    await new Promise<void>((resolve) => {
      const onEvent = (id: string) => {
        if (id === options.id) done();
      };
      const timer = setTimeout(() => done(), Math.min(options.pollMs, left));
      function done() {
        clearTimeout(timer);
        options.events.off(options.event, onEvent);
        resolve();
      }
      options.events.on(options.event, onEvent);
    });
  }
}

/** Signals followed by sessions, each with the controllers of the sessions following it. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

export interface Following {
  /** Aborts when the followed signal does (with its reason). */
  signal: AbortSignal;
  /** Stops following (the session is over). */
  release(): void;
}

/**
 * A signal of a session's own that aborts with `shared`, a signal many sessions follow (`vantage run`'s Ctrl-C).
 * All the sessions following one signal share one listener on it: a listener each would pass Node's limit of 10 at
 * --concurrency 11 and warn of a leak, and `AbortSignal.any` costs about 4 % of a URL check's CPU (weak references
 * and a finalisation registry for every session).
 */
export function follow(shared: AbortSignal): Following {
  const controller = new AbortController();
  if (shared.aborted) {
    controller.abort(shared.reason);
    return { signal: controller.signal, release: () => {} };
  }
  let sessions = followers.get(shared);
  if (!sessions) {
    const all = new Set<AbortController>();
    shared.addEventListener(
      'abort',
      () => {
        for (const session of all) session.abort(shared.reason);
        all.clear();
      },
      { once: true },
    );
    followers.set(shared, all);
    sessions = all;
  }
  const following = sessions;
  following.add(controller);
  return { signal: controller.signal, release: () => following.delete(controller) };
}

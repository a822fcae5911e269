/**
 * `action` run once for every call made within `ms` of the first: slots freed one after another are granted in
 * one credit message rather than one each (the control plane gathers credit that comes back a slot at a time for
 * up to 10 ms anyway, so nothing starts later for it).
 */
export function gathered(action: () => void, ms: number): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      action();
    }, ms).unref();
  };
}

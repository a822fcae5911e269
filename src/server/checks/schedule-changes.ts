let changes = 0;
const listeners = new Set<() => void>();

/**
 * Counts the writes of `check_schedules` made by this process. The scheduler reads the next-due time between
 * claims and does not ask again before it; a count that moved since says a check was added or changed here, so it
 * asks at once. Changes made by another replica are seen within the scheduler's longest wait (scheduler/quiet.ts).
 */
export function schedulesChanged(): void {
  changes += 1;
  for (const listener of listeners) listener();
}

/** Calls `listener` at each change made here (a sleeping scheduler wakes); returns the call that stops it. */
export function onSchedulesChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function scheduleChangeCount(): number {
  return changes;
}

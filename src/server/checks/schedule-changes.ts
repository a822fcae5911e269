let changes = 0;

/**
 * Counts the writes of `check_schedules` made by this process. The scheduler reads the next-due time between
 * claims and does not ask again before it; a count that moved since says a check was added or changed here, so it
 * asks at once. Changes made by another replica are seen within the scheduler's longest wait (scheduler/quiet.ts).
 */
export function schedulesChanged(): void {
  changes += 1;
}

export function scheduleChangeCount(): number {
  return changes;
}

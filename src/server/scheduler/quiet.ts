import { scheduleChangeCount } from '../checks/schedule-changes.js';
import { CLAIM_SOON_MS } from './tick.js';

/**
 * The longest the scheduler goes without asking the store when the next check is due: how late it may see a check
 * that another replica added or changed (this replica's own changes end the wait at once).
 */
export const QUIET_MAX_MS = 1_000;

/**
 * Between claims the scheduler's ticks need not each ask the store whether a check is due soon (at 10 ticks a second,
 * those probes were most of an idle control plane's statements): a tick knows when the next check comes due (from
 * its probe, or from its claim), and the ticks before that time, less the claim's CLAIM_SOON_MS, stay quiet, for
 * QUIET_MAX_MS at most, or until this process changes a check's schedule.
 */
export class DueProbeQuiet {
  private untilMs = 0;
  private changesSeen = -1;

  /**
   * Runs the tick at `now` (`scheduleDueChecks`: resolves to the next due time, null when no check is active,
   * undefined after claims of several batches) unless the ticks are quiet then.
   */
  async tick(now: Date, schedule: () => Promise<Date | null | undefined>): Promise<void> {
    // Read before the probe: a change made while it runs ends the quiet it sets.
    const changes = scheduleChangeCount();
    if (changes === this.changesSeen && now.getTime() < this.untilMs) return;
    const nextDueAt = await schedule();
    if (nextDueAt === undefined) {
      this.untilMs = 0;
      return;
    }
    const longest = now.getTime() + QUIET_MAX_MS;
    this.untilMs = nextDueAt === null ? longest : Math.min(longest, nextDueAt.getTime() - CLAIM_SOON_MS);
    this.changesSeen = changes;
  }
}

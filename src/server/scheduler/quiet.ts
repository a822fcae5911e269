import { scheduleChangeCount } from '../checks/schedule-changes.js';
import { CLAIM_SOON_MS, withinClaimReach } from './tick.js';

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
  /** When the next check comes due, as last read (null: unknown, or no check is active). */
  private nextDueMs: number | null = null;

  /** How long from `nowMs` the ticks stay quiet: the scheduler's loop sleeps that long (0 once a check changed here). */
  quietLeftMs(nowMs: number): number {
    if (scheduleChangeCount() !== this.changesSeen) return 0;
    return Math.max(0, this.untilMs - nowMs);
  }

  /**
   * Runs the tick at `now` (`scheduleDueChecks`: resolves to the next due time, null when no check is active,
   * undefined after claims of several batches or a claim that found nothing) unless the ticks are quiet then.
   * `schedule` is told when the check last read is within the claim's reach (withinClaimReach), as the probe would
   * find it: it then claims without probing first (the claim reads what is due itself; the reading is at most
   * QUIET_MAX_MS old).
   */
  async tick(now: Date, schedule: (dueSoon: boolean) => Promise<Date | null | undefined>): Promise<void> {
    // Read before the probe: a change made while it runs ends the quiet it sets.
    const changes = scheduleChangeCount();
    const unchanged = changes === this.changesSeen;
    if (unchanged && now.getTime() < this.untilMs) return;
    const known = unchanged ? this.nextDueMs : null;
    const nextDueAt = await schedule(known !== null && withinClaimReach(known, now.getTime()));
    if (nextDueAt === undefined) {
      this.untilMs = 0;
      this.nextDueMs = null;
      return;
    }
    const longest = now.getTime() + QUIET_MAX_MS;
    this.nextDueMs = nextDueAt?.getTime() ?? null;
    this.untilMs = this.nextDueMs === null ? longest : Math.min(longest, this.nextDueMs - CLAIM_SOON_MS);
    this.changesSeen = changes;
  }
}

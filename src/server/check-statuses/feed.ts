import type { Db } from '../store/db.js';
import type { CheckStatus } from './status.js';
import { checkStatuses } from './statuses.js';

/** How often a replica looks for changed checks while anyone listens. */
export const FEED_POLL_MS = 1_000;
/**
 * Rows are looked for this far behind the last look: a session or alert state committed a moment after its
 * timestamp (or stamped by a replica whose clock runs behind) is still found. What was sent already is not resent.
 */
const OVERLAP_MS = 10_000;

type Listener = (status: CheckStatus) => void;

/**
 * Every check whose status changes, told to the listeners of its account: one replica-wide poll (only while someone
 * listens) for sessions that finished, alert states that moved and checks that were edited since the last look.
 * Works across replicas, since it reads the store rather than this replica's events.
 */
export class StatusFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** What was last told of each check, by account: a status is sent only when it differs. */
  private readonly told = new Map<string, Map<string, string>>();
  private timer: NodeJS.Timeout | null = null;
  private since: Date;
  private polling = false;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    private readonly onError: (error: unknown) => void,
  ) {
    this.since = clock();
  }

  /** Listens to an account's changes; returns the function that stops listening. */
  listen(accountId: string, listener: Listener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) {
      set = new Set();
      this.listeners.set(accountId, set);
    }
    set.add(listener);
    if (!this.timer) {
      this.since = this.clock();
      this.timer = setInterval(() => void this.poll(), FEED_POLL_MS);
      this.timer.unref();
    }
    return () => {
      set.delete(listener);
      if (set.size === 0) {
        this.listeners.delete(accountId);
        this.told.delete(accountId);
      }
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One look: the checks of listened accounts that changed since the last look, each sent if it differs. */
  async poll(): Promise<void> {
    if (this.polling || this.listeners.size === 0) return;
    this.polling = true;
    try {
      const now = this.clock();
      const from = new Date(this.since.getTime() - OVERLAP_MS);
      const accounts = [...this.listeners.keys()];
      const changed = await this.db.query<{ account_id: string; check_id: string }>(
        `SELECT account_id, check_id FROM check_sessions WHERE stopped_at >= $1 AND account_id = ANY($2::text[])
         UNION SELECT account_id, check_id FROM alert_states WHERE updated_at >= $1 AND account_id = ANY($2::text[])
         UNION SELECT account_id, id FROM checks
                WHERE coalesce(updated_at, created_at) >= $1 AND account_id = ANY($2::text[])`,
        [from, accounts],
      );
      this.since = now;
      const byAccount = new Map<string, string[]>();
      for (const row of changed)
        byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row.check_id]);
      for (const [accountId, ids] of byAccount) await this.tell(accountId, ids);
    } catch (error) {
      this.onError(error);
    } finally {
      this.polling = false;
    }
  }

  private async tell(accountId: string, checkIds: readonly string[]): Promise<void> {
    const statuses = await checkStatuses(this.db, accountId, checkIds);
    const told = this.told.get(accountId) ?? new Map<string, string>();
    this.told.set(accountId, told);
    for (const status of statuses) {
      const text = JSON.stringify(status);
      if (told.get(status.checkId) === text) continue;
      told.set(status.checkId, text);
      for (const listener of this.listeners.get(accountId) ?? []) listener(status);
    }
  }
}

/**
 * Names for the statements the control plane sends to its store again and again. A statement sent with a name is
 * parsed and planned once per connection (node-postgres prepares it at its first use there; on PGlite,
 * pglite-statements.ts); later runs send only its parameters. On the hot paths (a claim, a lease, a result batch)
 * that took a third to a half of PostgreSQL's CPU away at 30–100 runs/s, an eighth at 300 and more
 * (docs/control-plane.md, Capacity, "Statements prepared on PostgreSQL" and "… on PGlite").
 *
 * A text is named from its second use, so SQL made for one occasion (a new day's partition) is never prepared, and
 * at most MAX_NAMED texts are: each named one is kept by every connection that ran it.
 */
const MAX_NAMED = 256;
/** Texts run once so far, named at their next run; forgotten all at once when this many pile up. */
const MAX_COUNTED = 4096;

/** PostgreSQL's answer to a statement name the server does not know: a pooler handed us another server session. */
const UNKNOWN_STATEMENT = '26000';
/** "cached plan must not change result type": a table a `SELECT *` reads gained a column (another replica's migration). */
const CHANGED_RESULT_TYPE = '0A000';

export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  private next = 1;
  private off = false;

  /** The name to send `sql` with, or undefined to send it unnamed. */
  nameOf(sql: string): string | undefined {
    if (this.off) return undefined;
    const name = this.names.get(sql);
    if (name !== undefined || this.names.size >= MAX_NAMED) return name;
    if (!this.seen.has(sql)) {
      if (this.seen.size >= MAX_COUNTED) this.seen.clear();
      this.seen.add(sql);
      return undefined;
    }
    this.seen.delete(sql);
    const fresh = `vantage_${this.next++}`;
    this.names.set(sql, fresh);
    return fresh;
  }

  /**
   * Learns from a named statement's failure; true when the same statement may be sent again unnamed. A connection
   * pooler in transaction mode (the statement unknown to the server session it reached) turns names off for good;
   * a result type that changed gives the text a new name, prepared anew on each connection.
   */
  failed(sql: string, error: unknown): boolean {
    const code = (error as { code?: unknown }).code;
    if (code === UNKNOWN_STATEMENT) {
      this.off = true;
      return true;
    }
    if (code === CHANGED_RESULT_TYPE && /cached plan must not change result type/.test(String(error))) {
      this.names.delete(sql);
      return true;
    }
    return false;
  }
}

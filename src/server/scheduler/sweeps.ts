import type { FastifyBaseLogger } from 'fastify';
import { Loop } from '../common/loop.js';
import type { Clock } from '../queue/clock.js';
import type { Db } from '../store/db.js';

/**
 * Work that may wait in the store at any moment and is found by looking: leases that ran out, overdue heartbeats,
 * due notifications, cancels to forward to this replica's agents.
 */
export interface Sweep {
  /** Named in the log when the sweep fails. */
  name: string;
  /** A boolean SQL expression of `$1` (the time now), one index probe: whether `run` would find anything. */
  probe: string;
  /** How often the store is asked. */
  everyMs: number;
  run(): Promise<void>;
}

/**
 * Asks the store about every sweep that is due in one statement, and runs only those that have work. Most seconds
 * find none: a quiet control plane then makes one statement a second for all of them instead of one each (issue 14,
 * docs/control-plane.md).
 */
export class Sweeper {
  private readonly loop: Loop;
  private readonly tickMs: number;
  private readonly askedAt: number[];

  constructor(
    private readonly db: Db,
    private readonly sweeps: readonly Sweep[],
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {
    this.tickMs = Math.min(...sweeps.map((s) => s.everyMs));
    this.askedAt = sweeps.map(() => Number.NEGATIVE_INFINITY);
    this.loop = new Loop('sweeps', this.tickMs, () => this.tick(), log);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Asks about the sweeps whose time came (all of them: `every`), then runs those with work, side by side. */
  async tick(every = false): Promise<void> {
    const at = performance.now();
    // Half a tick early counts as on time: ticks come a little after their interval, never before.
    const due = this.sweeps.filter(
      (s, i) => every || at - (this.askedAt[i] ?? 0) >= s.everyMs - this.tickMs / 2,
    );
    if (due.length === 0) return;
    for (const sweep of due) this.askedAt[this.sweeps.indexOf(sweep)] = at;
    // `asked_at` types $1 whatever probes the statement holds.
    const columns = due.map((s, i) => `(${s.probe}) AS s${i}`).join(', ');
    const [found] = await this.db.query<Record<string, unknown>>(
      `SELECT $1::timestamptz AS asked_at, ${columns}`,
      [this.clock()],
    );
    await Promise.all(
      due
        .filter((_, i) => found?.[`s${i}`] === true)
        .map((sweep) =>
          sweep.run().catch((error: unknown) => this.log.error({ err: error }, `${sweep.name} failed`)),
        ),
    );
  }
}

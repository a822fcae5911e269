import type { Logger } from '../../observability/logger.js';
import { AGENT_PATHS, type ResultUpload } from '../../protocol/index.js';
import { Backoff } from '../connection/backoff.js';
import type { ResultSpool, SpoolEntry } from '../spool/spool.js';
import { essentialUpload } from './bounded-result.js';
import type { ControlPlaneHttp } from './http-client.js';
import { Wakeup } from './wakeup.js';

export interface DeliveryOptions {
  spool: ResultSpool;
  http: ControlPlaneHttp;
  log: Logger;
  retry: { baseMs: number; maxMs: number };
  /** Results sent at once. */
  concurrency?: number;
  onDelivered?: (entry: SpoolEntry) => void;
}

/** A 4xx that is not about timing means the control plane will never take this result. */
function refusedForGood(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** The run is not this agent's to report (unknown, another agent's, another attempt): nothing can be sent. */
function notOurs(status: number): boolean {
  return status === 404 || status === 409;
}

/** The agent's key no longer counts (revoked): its runs were handed to other agents. */
function keyRefused(status: number): boolean {
  return status === 401 || status === 403;
}

/** Server errors for one result, while others get through, after which it counts as refused. */
const SERVER_ERRORS_BEFORE_REFUSED = 3;

/** How one result has fared: server errors since when, and whether only its essentials are sent now. */
interface Refusals {
  serverErrors: number;
  since: number;
  essential: ResultUpload | null;
}

/**
 * Sends spooled results, oldest first, each with its Idempotency-Key, and deletes a result only once the control
 * plane has acknowledged it. When the control plane cannot be reached every send waits (back-off with jitter);
 * a result it answers with an error waits on its own, so it never holds up the others.
 */
export class ResultDelivery {
  private readonly inFlight = new Set<SpoolEntry>();
  private readonly notBefore = new Map<SpoolEntry, { at: number; backoff: Backoff }>();
  private readonly refusals = new Map<SpoolEntry, Refusals>();
  private lastDeliveredAt = 0;
  private readonly unreachable: Backoff;
  private readonly wakeup = new Wakeup();
  private readonly abort = new AbortController();
  private pausedUntil = 0;
  private failing = false;
  private stopped = false;
  private workers: Promise<void>[] = [];

  constructor(private readonly options: DeliveryOptions) {
    this.unreachable = new Backoff(options.retry.baseMs, options.retry.maxMs);
  }

  start(): void {
    const count = this.options.concurrency ?? 4;
    for (let i = 0; i < count; i++) this.workers.push(this.work());
  }

  /** A new result is in the spool. */
  notify(): void {
    this.wakeup.wake();
  }

  /** The control plane is back (reconnected): every waiting result is tried again at once. */
  retryNow(): void {
    this.pausedUntil = 0;
    this.unreachable.reset();
    for (const wait of this.notBefore.values()) wait.at = 0;
    this.wakeup.wake();
  }

  /** Waits until the spool is empty (true) or the deadline passes (false). */
  async flush(deadline: number): Promise<boolean> {
    this.retryNow();
    while (this.options.spool.count > 0) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wakeup.wake();
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const entry = this.next();
      if (!entry) {
        await this.wakeup.sleep(this.untilNextDue());
        continue;
      }
      this.inFlight.add(entry);
      try {
        await this.deliver(entry);
      } finally {
        this.inFlight.delete(entry);
      }
    }
  }

  private next(): SpoolEntry | undefined {
    const now = Date.now();
    if (now < this.pausedUntil) return undefined;
    return this.options.spool
      .entries()
      .find((entry) => !this.inFlight.has(entry) && (this.notBefore.get(entry)?.at ?? 0) <= now);
  }

  private untilNextDue(): number {
    const now = Date.now();
    if (now < this.pausedUntil) return this.pausedUntil - now;
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of this.options.spool.entries()) {
      if (this.inFlight.has(entry)) continue;
      soonest = Math.min(soonest, (this.notBefore.get(entry)?.at ?? 0) - now);
    }
    return soonest;
  }

  private async deliver(entry: SpoolEntry): Promise<void> {
    const { spool, http, log } = this.options;
    const essential = this.refusals.get(entry)?.essential;
    // The spooled bytes go out as they are: a large result is neither parsed nor written again.
    const essentialJson = essential && Buffer.from(JSON.stringify(essential));
    const json = essentialJson
      ? { body: essentialJson, bytes: essentialJson.length }
      : await spool.openJson(entry);
    if (!json) {
      log.warn({ key: entry.key }, 'dropped a spooled result that could not be read');
      await this.forget(entry);
      return;
    }
    let status: number;
    try {
      ({ status } = await http.postJsonText(
        AGENT_PATHS.results,
        json,
        { 'idempotency-key': entry.key },
        this.abort.signal,
      ));
    } catch (error) {
      if (this.stopped) return;
      const wait = this.unreachable.next();
      this.pausedUntil = Date.now() + wait;
      if (!this.failing) {
        this.failing = true;
        log.warn(
          { error: (error as Error).message, spooled: spool.count },
          'results cannot reach the control plane; they stay in the spool and are sent when it answers',
        );
      }
      return;
    }
    this.unreachable.reset();
    if (this.failing) {
      this.failing = false;
      log.info({ spooled: spool.count }, 'the control plane takes results again');
    }
    if (status >= 200 && status < 300) {
      this.lastDeliveredAt = Date.now();
      await this.forget(entry);
      this.options.onDelivered?.(entry);
      log.debug({ key: entry.key }, 'result delivered');
    } else if (keyRefused(status)) {
      log.warn(
        { key: entry.key, status },
        "the control plane no longer accepts this agent's key; result dropped",
      );
      await this.forget(entry);
    } else if (notOurs(status)) {
      log.warn({ key: entry.key, status }, 'the control plane says this run is not ours to report; dropped');
      await this.forget(entry);
    } else if (refusedForGood(status) || this.refusedWhileOthersPass(entry, status)) {
      await this.refused(entry, status);
    } else {
      const wait = this.notBefore.get(entry) ?? {
        at: 0,
        backoff: new Backoff(this.options.retry.baseMs, this.options.retry.maxMs),
      };
      wait.at = Date.now() + wait.backoff.next();
      this.notBefore.set(entry, wait);
      log.warn({ key: entry.key, status }, 'the control plane did not take a result; it will be sent again');
    }
  }

  /** Server errors for this result while other results got through since its first one: it is the result. */
  private refusedWhileOthersPass(entry: SpoolEntry, status: number): boolean {
    if (status < 500) return false;
    const refusals = this.refusals.get(entry) ?? { serverErrors: 0, since: Date.now(), essential: null };
    refusals.serverErrors += 1;
    this.refusals.set(entry, refusals);
    return refusals.serverErrors >= SERVER_ERRORS_BEFORE_REFUSED && this.lastDeliveredAt > refusals.since;
  }

  /**
   * A result the control plane will not take is sent again as its essentials (status, flags, times, first error),
   * so the run still ends with its true status; when even those are refused it is dropped.
   */
  private async refused(entry: SpoolEntry, status: number): Promise<void> {
    const { log } = this.options;
    const refusals = this.refusals.get(entry);
    const upload = refusals?.essential ? null : await this.options.spool.read(entry);
    if (!upload) {
      log.error(
        { key: entry.key, status },
        'the control plane refused even the essentials of a result; dropped',
      );
      await this.forget(entry);
      return;
    }
    log.warn(
      { key: entry.key, status },
      'the control plane refused a result; sending its essentials instead',
    );
    const essential = essentialUpload(upload, `HTTP ${status}`);
    this.refusals.set(entry, { serverErrors: 0, since: Date.now(), essential });
    this.notBefore.delete(entry);
    this.wakeup.wake();
  }

  private async forget(entry: SpoolEntry): Promise<void> {
    this.refusals.delete(entry);
    this.notBefore.delete(entry);
    await this.options.spool.remove(entry);
  }
}

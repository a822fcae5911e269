import type { Logger } from '../../observability/logger.js';
import type { ResultUpload } from '../../protocol/messages.js';
import { AGENT_PATHS, PROTOCOL_LIMITS } from '../../protocol/version.js';
import { Backoff } from '../connection/backoff.js';
import type { ResultSpool, SpoolEntry } from '../spool/spool.js';
import { essentialUpload } from './bounded-result.js';
import type { ControlPlaneHttp } from './http-client.js';
import { batchBody, fitsInBatch, pickBatch } from './result-batch.js';
import { Wakeup } from './wakeup.js';

export interface DeliveryOptions {
  spool: ResultSpool;
  http: ControlPlaneHttp;
  log: Logger;
  retry: { baseMs: number; maxMs: number };
  /** Requests sent at once. */
  concurrency?: number;
  /** The protocol version the control plane welcomed last: from version 2 on, results go in batches. */
  peerProtocolVersion?: () => number;
  /** How long a fresh result waits for others to go in its batch, in ms. */
  batchLingerMs?: number;
  /** Whether runs are in progress, whose results could join a batch; when none is, a batch waits for no one. */
  runsInProgress?: () => boolean;
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

/**
 * A batch the control plane refuses as a whole although its results may each be fine: a control plane without the
 * batch route (404), a body it cannot take (400: one result nests too deep once inside a batch; 413). Each of its
 * results is then sent on its own, and answered on its own.
 */
function batchRefused(status: number): boolean {
  return refusedForGood(status) && !keyRefused(status);
}

/**
 * How long a fresh result waits for others to share its batch while runs are in progress: delivery is not on any
 * run's critical path, and the control plane's work per batch (a transaction, its authentication and alerting
 * statements) is much the same for 1 result or 100. At 300 runs a second a batch fills (100) in a third of a second
 * and goes then; at 30, one batch every two seconds instead of one a second, for about a tenth less of the control
 * plane's CPU per run (docs/control-plane.md, Capacity, "Result batches every two seconds").
 */
const BATCH_LINGER_MS = 2000;

/** Server errors for one result, while others get through, after which it counts as refused. */
const SERVER_ERRORS_BEFORE_REFUSED = 3;

/** How one result has fared: server errors since when, and whether only its essentials are sent now. */
interface Refusals {
  serverErrors: number;
  since: number;
  essential: ResultUpload | null;
}

/**
 * Sends spooled results, oldest first, and deletes a result only once the control plane has acknowledged it. To a
 * control plane of protocol version 2 they go in batches (what is due, up to the protocol's limits, after waiting
 * briefly for more), each answered on its own; to one of version 1 one by one, each with its Idempotency-Key.
 * When the control plane cannot be reached every send waits (back-off with jitter); a result it answers with an
 * error waits on its own, so it never holds up the others.
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
  /** When the results that wait for company go in a batch anyway (0: none waits). */
  private lingerUntil = 0;
  /** Results sent on their own from now on: a batch holding them was refused as a whole. */
  private readonly alone = new Set<SpoolEntry>();
  /** Until the next connection: this control plane has no batch route. */
  private singlesOnly = false;
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
    // While results wait for company, one more changes nothing until the batch could be full or no run is left.
    const waiting = this.lingerUntil > Date.now();
    if (waiting && this.options.spool.count < PROTOCOL_LIMITS.resultBatchSize && this.companyMayCome())
      return;
    this.wakeup.wake();
  }

  /** The control plane is back (reconnected): every waiting result is tried again at once. */
  retryNow(): void {
    this.pausedUntil = 0;
    this.singlesOnly = false;
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
      const next = this.next();
      if (!next) {
        await this.wakeup.sleep(this.untilNextDue());
        continue;
      }
      for (const entry of next.entries) this.inFlight.add(entry);
      try {
        if (next.batch) await this.deliverBatch(next.entries);
        else await this.deliver(next.entries[0] as SpoolEntry);
      } finally {
        for (const entry of next.entries) this.inFlight.delete(entry);
      }
    }
  }

  /** The results to send now: one, or a batch; none while they wait (for the control plane, or for company). */
  private next(): { entries: SpoolEntry[]; batch: boolean } | undefined {
    const now = Date.now();
    this.lingerUntil = 0;
    if (now < this.pausedUntil) return undefined;
    const ready = this.options.spool
      .entries()
      .filter((entry) => !this.inFlight.has(entry) && (this.notBefore.get(entry)?.at ?? 0) <= now);
    const [first] = ready;
    if (!first) return undefined;
    if (!this.batching() || !this.batchable(first)) return { entries: [first], batch: false };
    const { entries, full } = pickBatch(ready.filter((entry) => this.batchable(entry)));
    const lingerUntil = first.spooledAt.getTime() + (this.options.batchLingerMs ?? BATCH_LINGER_MS);
    if (!full && now < lingerUntil && this.companyMayCome()) {
      this.lingerUntil = lingerUntil;
      return undefined;
    }
    return { entries, batch: true };
  }

  private companyMayCome(): boolean {
    return this.options.runsInProgress?.() ?? true;
  }

  private batching(): boolean {
    return !this.singlesOnly && (this.options.peerProtocolVersion?.() ?? 1) >= 2;
  }

  private batchable(entry: SpoolEntry): boolean {
    return !this.alone.has(entry) && fitsInBatch(entry);
  }

  private untilNextDue(): number {
    const now = Date.now();
    if (now < this.pausedUntil) return this.pausedUntil - now;
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of this.options.spool.entries()) {
      if (this.inFlight.has(entry)) continue;
      const due = this.notBefore.get(entry)?.at ?? 0;
      soonest = Math.min(soonest, due > now ? due - now : this.lingerUntil - now);
    }
    return soonest;
  }

  private async deliver(entry: SpoolEntry): Promise<void> {
    const { spool, http } = this.options;
    const essential = this.refusals.get(entry)?.essential;
    // The spooled bytes go out as they are: a large result is neither parsed nor written again.
    const essentialJson = essential && Buffer.from(JSON.stringify(essential));
    const json = essentialJson
      ? { body: essentialJson, bytes: essentialJson.length }
      : await spool.openJson(entry);
    if (!json) {
      await this.unreadable(entry);
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
      this.unreachableNow(error);
      return;
    }
    this.reachableAgain();
    await this.settle(entry, status);
  }

  /** Sends results in one request; each is settled by its own answer. */
  private async deliverBatch(entries: readonly SpoolEntry[]): Promise<void> {
    const { http, log } = this.options;
    const sent: SpoolEntry[] = [];
    const uploads: Buffer[] = [];
    for (const entry of entries) {
      const essential = this.refusals.get(entry)?.essential;
      const json = essential
        ? Buffer.from(JSON.stringify(essential))
        : await this.options.spool.jsonBytes(entry);
      if (json) {
        sent.push(entry);
        uploads.push(json);
      } else await this.unreadable(entry);
    }
    if (sent.length === 0) return;
    const body = batchBody(uploads);
    let answer: Awaited<ReturnType<ControlPlaneHttp['postJsonText']>>;
    try {
      answer = await http.postJsonText(
        AGENT_PATHS.resultBatch,
        { body, bytes: body.length },
        {},
        this.abort.signal,
      );
    } catch (error) {
      this.unreachableNow(error);
      return;
    }
    this.reachableAgain();
    // Its schema (zod) is loaded at the first answer: the agent does not load zod at start.
    const { resultBatchAnswer } = await import('../../protocol/messages.js');
    const parsed = answer.status === 200 ? resultBatchAnswer.safeParse(answer.body) : null;
    if (parsed?.success && parsed.data.results.length === sent.length) {
      for (const [index, entry] of sent.entries()) {
        await this.settle(entry, parsed.data.results[index]?.statusCode ?? 500);
      }
    } else if (batchRefused(answer.status)) {
      log.warn(
        { status: answer.status, results: sent.length },
        'the control plane refused a batch of results as a whole; sending them one by one',
      );
      if (answer.status === 404) this.singlesOnly = true;
      for (const entry of sent) this.alone.add(entry);
      this.wakeup.wake();
    } else {
      // An answer that is not one per result counts as a server error for each.
      for (const entry of sent) await this.settle(entry, answer.status === 200 ? 502 : answer.status);
    }
  }

  private async unreadable(entry: SpoolEntry): Promise<void> {
    this.options.log.warn({ key: entry.key }, 'dropped a spooled result that could not be read');
    await this.forget(entry);
  }

  /** The control plane did not answer: every result waits (back-off), none is lost. */
  private unreachableNow(error: unknown): void {
    if (this.stopped) return;
    const wait = this.unreachable.next();
    this.pausedUntil = Date.now() + wait;
    if (!this.failing) {
      this.failing = true;
      this.options.log.warn(
        { error: (error as Error).message, spooled: this.options.spool.count },
        'results cannot reach the control plane; they stay in the spool and are sent when it answers',
      );
    }
  }

  private reachableAgain(): void {
    this.unreachable.reset();
    if (this.failing) {
      this.failing = false;
      this.options.log.info({ spooled: this.options.spool.count }, 'the control plane takes results again');
    }
  }

  /** What one result's answer means for it: delivered, dropped, cut to its essentials, or sent again later. */
  private async settle(entry: SpoolEntry, status: number): Promise<void> {
    const { log } = this.options;
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
    this.alone.delete(entry);
    await this.options.spool.remove(entry);
  }
}

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Check, type CheckSession, runSecrets, secretMasker } from '../../checks/index.js';
import { failedAttempt } from '../failed-attempt.js';
import { sessionRecord, sessionVariables, toCheckResult } from '../run/session.js';
import type { FromThread, PooledSessionOptions, SessionJob, ThreadData, ToThread } from './messages.js';
import { type SessionOutcome, SlotRunner } from './slot-runner.js';

/** The thread's code; run from source (tests, `--import tsx`), a thread loads thread.ts through tsx's loader. */
function threadSource(): { source: URL | string; eval: boolean } {
  if (!import.meta.url.endsWith('.ts'))
    return { source: new URL('./thread.js', import.meta.url), eval: false };
  // Its ESM entry, found from its package.json: import.meta.resolve is missing under test runners.
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsx = new URL('dist/esm/api/index.mjs', pathToFileURL(tsxPackage)).href;
  const thread = new URL('./thread.ts', import.meta.url).href;
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(thread)}); })`;
  return { source, eval: true };
}
const THREAD = threadSource();

/** Sessions a thread holds beyond those it runs, per slot: it starts the next without waiting for this thread. */
const HELD_PER_SLOT = 2;

export interface CheckPoolOptions {
  /** Worker threads. */
  threads: number;
  /** The main thread runs a share of the sessions too, as one more lane (one thread fewer to start). */
  mainThread?: boolean;
  /** Sessions run at once over all lanes (at least one per lane). */
  concurrency: number;
}

interface Job extends SessionJob {
  startedAt: Date;
  resolve: (session: CheckSession) => void;
}

/** A worker thread, or the main thread's own SlotRunner. */
interface Lane {
  worker: Worker | null;
  local: SlotRunner | null;
  slots: number;
  /** Its executors are loaded: a lane that dies before this is not replaced (it would die again). */
  ready: boolean;
  error: Error | null;
  /** Sent to the thread and not finished: running there or waiting in its queue. */
  held: Map<number, Job>;
}

/** The JSON each pooled session came as, for a reporter that writes JSON: it is not serialised again. */
const serialized = new WeakMap<CheckSession, string>();

export function serializedSession(session: CheckSession): string | undefined {
  return serialized.get(session);
}

/**
 * Worker threads that run check sessions of the POOLED_KINDS, so they use every core. The concurrency is shared
 * out as slots per thread; each thread holds a few sessions beyond its slots and sends records back in batches,
 * so threads rarely wait for each other. A thread that dies fails the sessions it held, with the reason, and is
 * replaced.
 */
export class CheckPool {
  private readonly lanes: Lane[] = [];
  private readonly waiting: Job[] = [];
  /** Waiting jobs cancelled before they were sent to a lane. */
  private readonly cancelling = new Set<number>();
  private nextId = 1;
  private pumping = false;
  private closed = false;
  /** Why no thread could be started, once none is left. */
  private broken: string | null = null;

  constructor(options: CheckPoolOptions) {
    const { threads, concurrency } = options;
    const lanes = threads + (options.mainThread ? 1 : 0);
    const slotsOf = (i: number) =>
      Math.max(1, Math.floor(concurrency / lanes) + (i < concurrency % lanes ? 1 : 0));
    for (let i = 0; i < threads; i++) this.lanes.push(this.startLane(slotsOf(i)));
    if (options.mainThread) this.lanes.push(this.localLane(slotsOf(threads)));
  }

  /** Runs a session of a validated check in a thread; never rejects (a lost thread makes a FAILED session). */
  runSession(check: Check, options: PooledSessionOptions, signal?: AbortSignal): Promise<CheckSession> {
    if (this.broken !== null || this.closed) {
      return Promise.resolve(lostSession(check, options, new Date(), this.broken ?? 'the pool is closed'));
    }
    const id = this.nextId++;
    return new Promise<CheckSession>((resolve) => {
      const cancel = () => this.cancel([id]);
      const job: Job = {
        id,
        check,
        options,
        startedAt: new Date(),
        resolve: (session) => {
          signal?.removeEventListener('abort', cancel);
          resolve(session);
        },
      };
      this.waiting.push(job);
      this.schedulePump();
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /** The threads now running, for a look at their resource use (`performance.eventLoopUtilization`, …). */
  get threads(): readonly Worker[] {
    return this.lanes.flatMap((lane) => (lane.worker ? [lane.worker] : []));
  }

  /** Cancels every session given so far: running ones stop, the others end CANCELLED without running. */
  cancelAll(): void {
    this.cancel([...this.waiting, ...this.lanes.flatMap((lane) => [...lane.held.values()])].map((j) => j.id));
  }

  /** Stops the threads; sessions still held are dropped (call once they are done). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.lanes.map((lane) => lane.worker?.terminate()));
  }

  private cancel(ids: number[]): void {
    for (const lane of this.lanes) {
      const held = ids.filter((id) => lane.held.has(id));
      if (held.length > 0) this.cancelInLane(lane, held);
    }
    // Jobs not sent yet are cancelled as they are sent: the lane ends them CANCELLED without running them.
    for (const id of ids) if (this.waiting.some((job) => job.id === id)) this.cancelling.add(id);
  }

  private cancelInLane(lane: Lane, ids: number[]): void {
    lane.local?.cancel(ids);
    lane.worker?.postMessage({ type: 'cancel', ids } satisfies ToThread);
  }

  private schedulePump(): void {
    if (this.pumping) return;
    this.pumping = true;
    queueMicrotask(() => this.pump());
  }

  /**
   * Tops every lane up to what it may hold, one message per thread. A thread is sent work once it has room for
   * its slots' worth (it still holds that many): fewer, larger messages.
   */
  private pump(): void {
    this.pumping = false;
    for (const lane of this.lanes) {
      const room = lane.slots * HELD_PER_SLOT - lane.held.size;
      if (room <= 0 || this.waiting.length === 0 || (lane.worker && room < lane.slots)) continue;
      const jobs = this.waiting.splice(0, room);
      for (const job of jobs) lane.held.set(job.id, job);
      const sent = jobs.map(({ id, check, options }) => ({ id, check, options }));
      lane.local?.add(sent);
      lane.worker?.postMessage({ type: 'sessions', jobs: sent } satisfies ToThread);
      if (this.cancelling.size === 0) continue;
      const cancelled = jobs.filter((job) => this.cancelling.delete(job.id)).map((job) => job.id);
      if (cancelled.length > 0) this.cancelInLane(lane, cancelled);
    }
  }

  private startLane(slots: number): Lane {
    const worker = new Worker(THREAD.source, {
      eval: THREAD.eval,
      workerData: { slots } satisfies ThreadData,
    });
    const lane: Lane = { worker, local: null, slots, ready: false, error: null, held: new Map() };
    worker.on('message', (message: FromThread) => this.onMessage(lane, message));
    worker.on('error', (error) => {
      lane.error = error;
    });
    worker.on('exit', (code) => this.onExit(lane, code));
    return lane;
  }

  private localLane(slots: number): Lane {
    const lane: Lane = { worker: null, local: null, slots, ready: true, error: null, held: new Map() };
    lane.local = new SlotRunner(slots, (id, outcome) => this.finish(lane, id, outcome));
    return lane;
  }

  /** A session of the lane ended: its job is settled and the lanes are topped up. */
  private finish(lane: Lane, id: number, outcome: SessionOutcome, json?: string): void {
    const job = lane.held.get(id);
    if (!job) return;
    lane.held.delete(id);
    if ('error' in outcome) {
      job.resolve(lostSession(job.check, job.options, job.startedAt, `internal error: ${outcome.error}`));
    } else {
      if (json !== undefined) serialized.set(outcome.session, json);
      job.resolve(outcome.session);
    }
    this.schedulePump();
  }

  private onMessage(lane: Lane, message: FromThread): void {
    if (message.type === 'ready') {
      lane.ready = true;
      return;
    }
    for (const { id, json } of message.sessions) {
      this.finish(lane, id, { session: JSON.parse(json) as CheckSession }, json);
    }
    for (const { id, message: error } of message.failed) this.finish(lane, id, { error });
  }

  private onExit(lane: Lane, code: number): void {
    if (this.closed) return;
    const reason = `the worker thread holding it stopped (${lane.error?.message ?? `exit code ${code}`})`;
    for (const job of lane.held.values()) {
      job.resolve(lostSession(job.check, job.options, job.startedAt, reason));
    }
    lane.held.clear();
    const at = this.lanes.indexOf(lane);
    if (lane.ready) {
      this.lanes[at] = this.startLane(lane.slots);
      this.pump();
      return;
    }
    this.lanes.splice(at, 1);
    if (this.lanes.length > 0) {
      this.pump();
      return;
    }
    this.broken = `no worker thread could be started: ${reason}`;
    for (const job of this.waiting.splice(0)) {
      job.resolve(lostSession(job.check, job.options, job.startedAt, this.broken));
    }
  }
}

/** The FAILED session of a check whose thread was lost: one FINAL result saying why, secrets masked. */
function lostSession(
  check: Check,
  options: PooledSessionOptions,
  startedAt: Date,
  reason: string,
): CheckSession {
  const mask = secretMasker(runSecrets(check, sessionVariables(check, options)));
  const attempt = failedAttempt(mask(`the check did not finish: ${reason}`), { startedAt });
  const result = toCheckResult(
    check,
    { attempt, timedOut: false, cancelled: false },
    'FINAL',
    1,
    options.runLocation,
  );
  return sessionRecord(check, options, { status: 'FAILED', startedAt, results: [result] });
}

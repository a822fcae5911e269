import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Check, type CheckSession, runSecrets, secretMasker } from '../../checks/index.js';
import { failedAttempt } from '../failed-attempt.js';
import type { AttemptEnd } from '../run/attempt.js';
import { sessionRecord, sessionVariables, toCheckResult } from '../run/session.js';
import type {
  FromThread,
  PooledAttemptOptions,
  PooledJob,
  PooledSessionOptions,
  ThreadData,
  ToThread,
} from './messages.js';
import { type JobOutcome, SlotRunner } from './slot-runner.js';

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

/** Jobs a thread holds beyond those it runs, per slot: it starts the next without waiting for this thread. */
const HELD_PER_SLOT = 2;

export interface CheckPoolOptions {
  /** Worker threads. */
  threads: number;
  /** The main thread runs a share of the sessions too, as one more lane (one thread fewer to start). */
  mainThread?: boolean;
  /** Jobs run at once over all lanes (at least one per lane). */
  concurrency: number;
  /**
   * Lanes hold jobs beyond their slots, and threads are sent work in batches (`vantage run`: a file of checks, done
   * soonest). Off, each job goes to the lane with the most free slots and none waits in a lane while another has a
   * free slot (an agent: its runs are due when they come, and it never gives more than the slots at once).
   */
  holdAhead?: boolean;
}

/** A job given to the pool: what the lane runs, and how its outcome (or why it was lost) settles its promise. */
interface Job {
  work: PooledJob;
  /** Settles with what the job's lane found, or with the reason it has none (a lost thread, a closed pool). */
  settle: (outcome: Outcome, json?: string) => void;
}

/** A job as given, before the pool numbers it. */
type Work = { [K in PooledJob['type']]: Omit<Extract<PooledJob, { type: K }>, 'id'> }[PooledJob['type']];

/** What a lane found, or why the job has no outcome (a lost thread, a closed pool). */
type Outcome = JobOutcome | { lost: string };

/** Why a job that ended without its session or attempt did: for the failed result that stands in for it. */
function whyLost(outcome: Outcome): string {
  if ('lost' in outcome) return outcome.lost;
  return 'error' in outcome
    ? `internal error: ${outcome.error}`
    : 'internal error: an outcome of another kind';
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
 * Worker threads that run check sessions (`vantage run`) and attempts (an agent's runs) of the POOLED_KINDS, so they
 * use every core. The concurrency is shared out as slots per thread; each thread holds a few jobs beyond its slots
 * and sends outcomes back in batches, so threads rarely wait for each other. A thread that dies fails the jobs it
 * held, with the reason, and is replaced.
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

  private readonly holdAhead: boolean;

  constructor(options: CheckPoolOptions) {
    const { threads, concurrency } = options;
    this.holdAhead = options.holdAhead ?? true;
    const lanes = threads + (options.mainThread ? 1 : 0);
    const slotsOf = (i: number) =>
      Math.max(1, Math.floor(concurrency / lanes) + (i < concurrency % lanes ? 1 : 0));
    for (let i = 0; i < threads; i++) this.lanes.push(this.startLane(slotsOf(i)));
    if (options.mainThread) this.lanes.push(this.localLane(slotsOf(threads)));
  }

  /** Runs a session of a validated check in a thread; never rejects (a lost thread makes a FAILED session). */
  runSession(check: Check, options: PooledSessionOptions, signal?: AbortSignal): Promise<CheckSession> {
    const startedAt = new Date();
    return this.give({ type: 'session', check, options }, signal, (outcome, json) => {
      if ('session' in outcome) {
        if (json !== undefined) serialized.set(outcome.session, json);
        return outcome.session;
      }
      return lostSession(check, options, startedAt, whyLost(outcome));
    });
  }

  /**
   * Runs one attempt of a validated check in a thread (an agent's run); never rejects (a lost thread makes a failed
   * attempt saying why, secrets masked).
   */
  runAttempt(check: Check, options: PooledAttemptOptions, signal?: AbortSignal): Promise<AttemptEnd> {
    const startedAt = new Date();
    return this.give({ type: 'attempt', check, options }, signal, (outcome) => {
      if ('end' in outcome) return outcome.end;
      const mask = secretMasker(options.secrets);
      return {
        attempt: failedAttempt(mask(`the check did not finish: ${whyLost(outcome)}`), { startedAt }),
        timedOut: false,
        cancelled: false,
      };
    });
  }

  /** Queues `work` for a lane; its promise settles with `settled` of what came back. */
  private give<T>(
    work: Work,
    signal: AbortSignal | undefined,
    settled: (outcome: Outcome, json?: string) => T,
  ): Promise<T> {
    const id = this.nextId++;
    const job = { id, ...work } as PooledJob;
    if (this.broken !== null || this.closed) {
      return Promise.resolve(settled({ lost: this.broken ?? 'the pool is closed' }));
    }
    return new Promise<T>((resolve) => {
      const cancel = () => this.cancel([id]);
      this.waiting.push({
        work: job,
        settle: (outcome, json) => {
          signal?.removeEventListener('abort', cancel);
          resolve(settled(outcome, json));
        },
      });
      this.schedulePump();
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /** The threads now running, for a look at their resource use (`performance.eventLoopUtilization`, …). */
  get threads(): readonly Worker[] {
    return this.lanes.flatMap((lane) => (lane.worker ? [lane.worker] : []));
  }

  /** Cancels every job given so far: running ones stop, the others end CANCELLED without running. */
  cancelAll(): void {
    const jobs = [...this.waiting, ...this.lanes.flatMap((lane) => [...lane.held.values()])];
    this.cancel(jobs.map((job) => job.work.id));
  }

  /** Stops the threads; jobs still held are dropped (call once they are done). */
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
    for (const id of ids) if (this.waiting.some((job) => job.work.id === id)) this.cancelling.add(id);
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
   * Tops every lane up to what it may hold, one message per thread. Holding ahead, a thread is sent work once it has
   * room for its slots' worth (it still holds that many): fewer, larger messages. Otherwise each job goes to the lane
   * with the most free slots.
   */
  private pump(): void {
    this.pumping = false;
    const batches = new Map<Lane, Job[]>();
    if (this.holdAhead) {
      for (const lane of this.lanes) {
        const room = lane.slots * HELD_PER_SLOT - lane.held.size;
        if (room <= 0 || this.waiting.length === 0 || (lane.worker && room < lane.slots)) continue;
        batches.set(lane, this.waiting.splice(0, room));
      }
    } else {
      const free = (lane: Lane) => lane.slots - lane.held.size - (batches.get(lane)?.length ?? 0);
      while (this.waiting.length > 0) {
        const roomiest = this.lanes.reduce<Lane | undefined>(
          (a, b) => (a && free(a) >= free(b) ? a : b),
          undefined,
        );
        if (!roomiest || free(roomiest) <= 0) break;
        const batch = batches.get(roomiest) ?? [];
        batches.set(roomiest, batch);
        batch.push(this.waiting.shift() as Job);
      }
    }
    for (const [lane, jobs] of batches) this.send(lane, jobs);
  }

  private send(lane: Lane, jobs: Job[]): void {
    for (const job of jobs) lane.held.set(job.work.id, job);
    const sent = jobs.map((job) => job.work);
    lane.local?.add(sent);
    lane.worker?.postMessage({ type: 'jobs', jobs: sent } satisfies ToThread);
    if (this.cancelling.size === 0) return;
    const cancelled = sent.filter((work) => this.cancelling.delete(work.id)).map((work) => work.id);
    if (cancelled.length > 0) this.cancelInLane(lane, cancelled);
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

  /** A job of the lane ended: it is settled and the lanes are topped up. */
  private finish(lane: Lane, id: number, outcome: JobOutcome, json?: string): void {
    const job = lane.held.get(id);
    if (!job) return;
    lane.held.delete(id);
    job.settle(outcome, json);
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
    for (const { id, end } of message.attempts) this.finish(lane, id, { end });
    for (const { id, message: error } of message.failed) this.finish(lane, id, { error });
  }

  private onExit(lane: Lane, code: number): void {
    if (this.closed) return;
    const reason = `the worker thread holding it stopped (${lane.error?.message ?? `exit code ${code}`})`;
    for (const job of lane.held.values()) job.settle({ lost: reason });
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
    for (const job of this.waiting.splice(0)) job.settle({ lost: this.broken });
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

import { createReadStream } from 'node:fs';
import {
  type Check,
  EXECUTION_LIMIT_MS,
  isCheckType,
  type Masker,
  MIN_SUBSTRING_SECRET_LENGTH,
  maskDeep,
  runSecrets,
  type SessionStatus,
  secretMasker,
  shortSecretWarning,
  VariableSet,
} from '../checks/index.js';
import { failedAttempt } from '../executors/failed-attempt.js';
import { CheckPool, type CheckPoolOptions, POOLED_KINDS } from '../executors/pool/index.js';
import type { ExecutorRegistry } from '../executors/registry.js';
import { type AttemptEnd, runAttempt } from '../executors/run/attempt.js';
import { statusOfAttempt, toCheckResult } from '../executors/run/session.js';
import {
  type ArtifactOutcome,
  discardArtifacts,
  withAssetUrls,
} from '../executors/script/settle-artifacts.js';
import type { Logger } from '../observability/logger.js';
import type { AgentMetrics } from '../observability/metrics.js';
import type { SecretValues } from '../observability/secret-values.js';
import {
  PROTOCOL_LIMITS,
  type ResultUpload,
  type RunMessage,
  type SlotClass,
  slotClassOf,
} from '../protocol/index.js';
import { type BusyWatchOptions, whenBusy } from './busy-watch.js';
import type { ArtifactUploader } from './delivery/artifacts.js';
import { boundedResult } from './delivery/bounded-result.js';
import { BundleFetchError, type BundleFetcher } from './delivery/bundles.js';
import { ParsedChecks } from './parsed-checks.js';
import type { SlotLedger } from './slots/ledger.js';
import type { SlotQueues } from './slots/queues.js';
import type { ResultSpool } from './spool/spool.js';

export interface RunnerOptions {
  agentId: string;
  executors: ExecutorRegistry;
  ledger: SlotLedger;
  queues: SlotQueues;
  spool: ResultSpool;
  secrets: SecretValues;
  metrics: AgentMetrics;
  log: Logger;
  /** Uploads the files runs produce (screenshots, traces, …); without it they are dropped. */
  artifacts?: ArtifactUploader;
  /** Fetches the code bundles the control plane serves for PLAYWRIGHT runs; without it URLs go to the executor. */
  bundles?: BundleFetcher;
  /** Multiplies each kind's execution limit (AGENT_RUN_LIMIT_SCALE). */
  limitScale: number;
  /**
   * Worker threads for URL, API, TCP and DNS runs (AGENT_THREADS), started with the runner or once this thread is
   * busy (`whenBusy`); without it every run is on this thread.
   */
  pool?: CheckPoolOptions & { start: 'now' | 'when-busy'; busy?: BusyWatchOptions };
  /** The protocol version the control plane welcomed last: what the results may hold. */
  peerProtocolVersion: () => number;
  /** A result was spooled. */
  onSpooled(): void;
  /** A slot of the class is free again (credit can be granted). */
  onSlotFreed(slotClass: SlotClass): void;
}

type Phase = 'queued' | 'running' | 'done';

interface RunState {
  run: RunMessage;
  slotClass: SlotClass;
  phase: Phase;
  controller: AbortController;
  /** The validated check, or why it is not valid. */
  check: Check | string;
  /** The run's secret values: the check's and those it inherits (those alone when the check is not valid). */
  secrets: readonly string[];
  /** Masks `secrets`. */
  mask: Masker;
  /** Its slot was given back: the run ended, and its result may still be on its way to the spool. */
  slotFreed?: boolean;
  /** Holds a run sent ahead of its start (`startInMs`) until then, on its slot. */
  startTimer?: NodeJS.Timeout;
}

export type Acceptance = 'accepted' | 'duplicate' | 'no-credit';

/**
 * Each run from its arrival to its spooled result: validation, its slot-class queue, one attempt under the
 * kind's execution limit, cancel through the executor's AbortSignal, and the result written to the spool.
 */
export class Runner {
  private readonly runs = new Map<string, RunState>();
  private readonly warned = new Set<string>();
  private idleWaiters: (() => void)[] = [];
  private readonly checks = new ParsedChecks();
  private pool: CheckPool | null = null;
  private stopWatch: (() => void) | null = null;

  constructor(private readonly options: RunnerOptions) {
    const pool = options.pool;
    if (!pool || pool.threads <= 0) return;
    if (pool.start === 'now') {
      this.pool = new CheckPool(pool);
      return;
    }
    this.stopWatch = whenBusy(() => {
      this.pool = new CheckPool(pool);
      options.log.info(
        { threads: pool.threads },
        'the main thread is busy: URL, API, TCP and DNS runs go to worker threads from now on',
      );
    }, pool.busy);
  }

  /** Worker threads of the pool now running. */
  get threads(): number {
    return this.pool?.threads.length ?? 0;
  }

  /** Stops the pool's threads, if any (once no run is held). */
  async close(): Promise<void> {
    this.stopWatch?.();
    await this.pool?.close();
  }

  /**
   * Takes a run sent against this agent's credit. A run it already holds, or whose result is already spooled
   * (`alreadyDone`), uses up its credit but is not run again.
   */
  accept(run: RunMessage, alreadyDone = false): Acceptance {
    const parsed = this.checks.parse(run.check);
    const kind = parsed.ok ? parsed.value.checkType : run.check.checkType;
    const slotClass = isCheckType(kind) ? slotClassOf(kind) : 'light';
    const { ledger } = this.options;
    if (!ledger.claim(slotClass)) return 'no-credit';
    if (alreadyDone || this.runs.has(run.runId)) {
      ledger.release(slotClass);
      return 'duplicate';
    }
    const check = parsed.ok
      ? parsed.value
      : `the check is not valid: ${parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`;
    const secrets =
      typeof check === 'string'
        ? new VariableSet(...run.inheritedVariables).secretValues()
        : runSecrets(check, new VariableSet(check.environmentVariables, ...run.inheritedVariables));
    const state: RunState = {
      run,
      slotClass,
      phase: 'queued',
      controller: new AbortController(),
      check,
      secrets,
      mask: secretMasker(secrets),
    };
    this.runs.set(run.runId, state);
    const startInMs = Math.min(run.startInMs ?? 0, PROTOCOL_LIMITS.maxStartInMs);
    if (startInMs > 0) {
      state.startTimer = setTimeout(() => {
        state.startTimer = undefined;
        this.options.queues.add(slotClass, () => this.execute(state));
      }, startInMs);
    } else this.options.queues.add(slotClass, () => this.execute(state));
    return 'accepted';
  }

  /**
   * Stops a run: a running one through its signal, a queued one (or one waiting for its start) at once; both are
   * reported CANCELLED.
   */
  cancel(runId: string): boolean {
    const state = this.runs.get(runId);
    if (!state) return false;
    if (state.phase === 'running') state.controller.abort();
    else if (state.phase === 'queued') {
      state.phase = 'done';
      clearTimeout(state.startTimer);
      const end = endedEarly('the run was cancelled before it started', { cancelled: true });
      void this.finish(state, end, Date.now());
    }
    return true;
  }

  /** Takes back the runs that have not started, waiting ones included (shutdown); their ids are to be released. */
  releaseUnstarted(): string[] {
    const released: string[] = [];
    for (const state of this.runs.values()) {
      if (state.phase !== 'queued') continue;
      state.phase = 'done';
      clearTimeout(state.startTimer);
      released.push(state.run.runId);
      this.forget(state);
    }
    this.options.queues.clear();
    return released;
  }

  /** Cancels every running run (the shutdown grace period is over). */
  cancelRunning(): void {
    for (const state of this.runs.values()) if (state.phase === 'running') state.controller.abort();
  }

  /** Resolves once no run is held. */
  idle(): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ids of the runs this agent holds, queued or running. */
  heldRunIds(): string[] {
    return [...this.runs.keys()];
  }

  count(phase: 'queued' | 'running', slotClass?: SlotClass): number {
    let n = 0;
    for (const state of this.runs.values()) {
      if (state.phase === phase && (!slotClass || state.slotClass === slotClass)) n++;
    }
    return n;
  }

  private async execute(state: RunState): Promise<void> {
    if (state.phase !== 'queued') return;
    state.phase = 'running';
    const startedAt = Date.now();
    const { run } = state;
    const secrets = run.inheritedVariables.flat().filter((v) => v.secret && v.value !== '');
    this.options.secrets.add(secrets.map((v) => v.value));
    let end: AttemptEnd;
    try {
      end =
        typeof state.check === 'string' ? endedEarly(state.check) : await this.attempt(state, state.check);
      end = await this.uploadArtifacts(run.runId, end);
    } catch (error) {
      this.options.log.error({ err: error, runId: run.runId }, 'a run failed inside the agent');
      end = endedEarly(`internal error in the agent: ${(error as Error).message}`);
    }
    await this.finish(state, end, startedAt);
  }

  private async attempt(state: RunState, check: Check): Promise<AttemptEnd> {
    const { run } = state;
    const variables = new VariableSet(check.environmentVariables, ...run.inheritedVariables);
    this.options.secrets.add(state.secrets);
    for (const key of variables.shortSecretKeys(MIN_SUBSTRING_SECRET_LENGTH)) {
      this.warnOnce(`short-secret:${key}`, shortSecretWarning(key));
    }
    this.options.log.info(
      { runId: run.runId, attempt: run.attempt, checkId: check.id, checkType: check.checkType },
      'run started',
    );
    let resolved = { check, dispose: async () => {} };
    try {
      if (this.options.bundles) {
        resolved = await this.options.bundles.resolve(check, run.runId, state.controller.signal);
      }
    } catch (error) {
      if (error instanceof BundleFetchError) return endedEarly(error.message);
      throw error;
    }
    const { signal } = state.controller;
    const attempt = {
      runId: run.runId,
      runLocation: run.runLocation,
      clientCertificates: run.clientCertificates,
      limitMs: Math.max(1, Math.round(EXECUTION_LIMIT_MS[check.checkType] * this.options.limitScale)),
    };
    try {
      if (this.pool && POOLED_KINDS.has(resolved.check.checkType)) {
        const inThread = { ...attempt, inherited: run.inheritedVariables, secrets: state.secrets };
        return await this.pool.runAttempt(resolved.check, inThread, signal);
      }
      const here = { ...attempt, executors: this.options.executors, variables, mask: state.mask, signal };
      return await runAttempt(resolved.check, here);
    } finally {
      await resolved.dispose();
    }
  }

  /** Sends the attempt's files to the control plane, puts their URLs into its assets, and removes them. */
  private async uploadArtifacts(runId: string, end: AttemptEnd): Promise<AttemptEnd> {
    const artifacts = end.attempt.artifacts;
    if (!artifacts?.length) return end;
    try {
      const uploader = this.options.artifacts;
      const outcomes = new Map<string, ArtifactOutcome>();
      await Promise.all(
        artifacts.map(async (artifact) => {
          const uploaded = uploader
            ? await uploader.upload(runId, { ...artifact, open: () => createReadStream(artifact.path) })
            : { url: null, note: 'not uploaded: this agent has no artifact upload' };
          outcomes.set(artifact.name, uploaded);
        }),
      );
      return { ...end, attempt: withAssetUrls(end.attempt, outcomes) };
    } finally {
      await discardArtifacts(artifacts);
    }
  }

  private async finish(state: RunState, end: AttemptEnd, startedAt: number): Promise<void> {
    const { run } = state;
    const { upload, kind } = this.resultOf(state, end);
    // The run is over, so its slot is free: writing the result to disk is the spool's work, not a slot's. The run
    // stays held (its lease renewed, a second copy refused) until its result is on disk.
    this.freeSlot(state);
    try {
      await this.options.spool.add(upload);
      this.options.onSpooled();
    } finally {
      state.phase = 'done';
      const seconds = (Date.now() - startedAt) / 1000;
      this.options.metrics.runFinished(kind, upload.status, seconds);
      this.options.log.info(
        {
          runId: run.runId,
          attempt: run.attempt,
          status: upload.status,
          durationMs: Math.round(seconds * 1000),
        },
        'run finished',
      );
      this.forget(state);
    }
  }

  private resultOf(state: RunState, end: AttemptEnd): { upload: ResultUpload; kind: string } {
    const { run } = state;
    let check: Check;
    let status: SessionStatus;
    if (typeof state.check === 'string') {
      check = identityOf(run.check);
      status = end.cancelled ? 'CANCELLED' : 'FAILED';
    } else {
      check = state.check;
      status = statusOfAttempt(check, end);
    }
    const record = toCheckResult(check, end, 'FINAL', run.attempt, run.runLocation);
    const result = state.mask.masksNothing ? record : maskDeep(record, state.mask);
    return {
      kind: check.checkType,
      upload: {
        runId: run.runId,
        attempt: run.attempt,
        agentId: this.options.agentId,
        status,
        result: boundedResult(result, PROTOCOL_LIMITS.resultBytes),
        networkError: end.attempt.networkError,
        ...(end.attempt.permanentError && this.options.peerProtocolVersion() >= 2
          ? { permanentError: true }
          : {}),
      },
    };
  }

  /** Logs a warning once in the agent's life (e.g. per short secret), not once per run. */
  private warnOnce(id: string, message: string): void {
    if (this.warned.has(id)) return;
    this.warned.add(id);
    this.options.log.warn(message);
  }

  /** Gives the run's slot back, once; true when this call gave it back. */
  private releaseSlot(state: RunState): boolean {
    if (state.slotFreed) return false;
    state.slotFreed = true;
    this.options.ledger.release(state.slotClass);
    return true;
  }

  /** Gives the run's slot back and grants its credit again. */
  private freeSlot(state: RunState): void {
    if (this.releaseSlot(state)) this.options.onSlotFreed(state.slotClass);
  }

  private forget(state: RunState): void {
    if (this.runs.get(state.run.runId) !== state) return;
    this.runs.delete(state.run.runId);
    this.releaseSlot(state);
    if (this.runs.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}

function endedEarly(reason: string, flags: { cancelled?: boolean } = {}): AttemptEnd {
  return { attempt: failedAttempt(reason), timedOut: false, cancelled: flags.cancelled ?? false };
}

/**
 * What a result record needs of a check that did not validate: toCheckResult reads only its id, kind and
 * name, which are taken from the stored check as they are.
 */
function identityOf(raw: Record<string, unknown>): Check {
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    checkType: (typeof raw.checkType === 'string' ? raw.checkType : 'UNKNOWN') as Check['checkType'],
    name: typeof raw.name === 'string' ? raw.name : '',
  } as Check;
}

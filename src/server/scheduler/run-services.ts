import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { PROTOCOL_LIMITS } from '../../protocol/index.js';
import { closeMailTransports } from '../alerts/channels/index.js';
import { alertClockTick } from '../alerts/clock.js';
import { AlertDelivery } from '../alerts/delivery.js';
import { alertOnFinishedSessions } from '../alerts/evaluate.js';
import { DELIVERY_PROBE } from '../alerts/outbox.js';
import { ALERT_CLOCK_PROBE } from '../alerts/state-store.js';
import { onSchedulesChanged } from '../checks/schedule-changes.js';
import { Loop } from '../common/loop.js';
import type { AlertingConfig } from '../config.js';
import type { ServerContext } from '../context.js';
import { Gateway } from '../gateway/gateway.js';
import { OVERDUE_PROBE } from '../heartbeats/monitors.js';
import { failOverdueHeartbeats } from '../heartbeats/overdue.js';
import { CANCELS_PROBE } from '../queue/cancel.js';
import { type Clock, systemClock } from '../queue/clock.js';
import { type RunEffects, RunEvents } from '../queue/events.js';
import { REAPER_PROBE } from '../queue/sweep.js';
import { QueueWakeups } from '../queue/wakeups.js';
import { type RetentionOutcome, runRetention } from '../retention/job.js';
import { DAY_MS } from '../retention/periods.js';
import { PGLITE_ADVISED_RUNS } from '../retention/store-size.js';
import { expireUntakenRuns, reapLostLeases } from '../sessions/reaper.js';
import type { RunsContext } from '../sessions/runs-context.js';
import { deliverSubscriberMails, SUBSCRIBER_MAIL_PROBE } from '../status-pages/subscriber-mail.js';
import { ANALYZE_LOOK_MS, analyzeChangedTables, CHANGED_TABLES_PROBE } from '../store/analyze.js';
import type { Db } from '../store/db.js';
import { VACUUM_DUE_PROBE, VACUUM_LOOK_MS, vacuumTablesDue } from '../store/vacuum.js';
import { minuteOf, sampleLocationMetrics } from './metrics.js';
import { DueProbeQuiet } from './quiet.js';
import { Sweeper } from './sweeps.js';
import { scheduleDueChecks } from './tick.js';

/** Timings and the clock of the run machinery; tests inject a clock and short intervals. */
export interface RunServiceOptions {
  clock?: Clock;
  /** Whether the background loops run on their own (false: tests call the ticks). Default true. */
  background?: boolean;
  schedulerTickMs?: number;
  reaperTickMs?: number;
  /** How often the metrics sampler looks whether a new minute began (on the system clock it sleeps until then). */
  metricsTickMs?: number;
  dispatchPollMs?: number;
  completionPollMs?: number;
  leaseTtlMs?: number;
  heartbeatIntervalMs?: number;
  helloTimeoutMs?: number;
  pingIntervalMs?: number;
  /** How often reminders and time-based escalations are looked for. */
  alertClockTickMs?: number;
  /** How often the alert outbox is looked at (it is also woken when a session writes to it). */
  alertDeliveryPollMs?: number;
  /** How often results are rolled up and what is past its retention removed (src/server/retention/). */
  retentionTickMs?: number;
  /** Runs a PGlite store suits before the server warns (src/server/retention/store-size.ts). */
  pgliteAdvisedRuns?: number;
  /** How often heartbeat checks whose ping is overdue are looked for (src/server/heartbeats/overdue.ts). */
  overdueHeartbeatTickMs?: number;
  /** How often the outbox of mail to status-page subscribers is looked at. */
  subscriberMailTickMs?: number;
}

const DEFAULTS = {
  // An idle tick is one index probe: ticking often keeps runs close to the start of their intervals.
  schedulerTickMs: 100,
  reaperTickMs: 1000,
  metricsTickMs: 1000,
  dispatchPollMs: 1000,
  completionPollMs: 500,
  leaseTtlMs: PROTOCOL_LIMITS.leaseTtlMs,
  heartbeatIntervalMs: PROTOCOL_LIMITS.heartbeatIntervalMs,
  helloTimeoutMs: 10_000,
  pingIntervalMs: 30_000,
  alertClockTickMs: 5000,
  alertDeliveryPollMs: 1000,
  retentionTickMs: 10 * 60_000,
  pgliteAdvisedRuns: PGLITE_ADVISED_RUNS,
  // An idle tick is one index probe; a missed ping is recorded within a second of its deadline.
  overdueHeartbeatTickMs: 1000,
  subscriberMailTickMs: 2000,
};

/**
 * The run machinery of one server: the scheduler, the lease reaper and expiry, the metrics sampler, the agent
 * gateway and alert delivery, over one store and one clock. Every replica runs all of them; the store keeps them from stepping on
 * each other.
 */
export class RunServices implements RunsContext {
  readonly events = new RunEvents();
  readonly clock: Clock;
  readonly gateway: Gateway;
  readonly completionPollMs: number;
  readonly onSessionFinished = alertOnFinishedSessions;
  readonly agentFreshMs: number;
  readonly alerts: AlertDelivery;
  private readonly loops: Loop[];
  private readonly deliveryLoop: Loop;
  private readonly schedulerLoop: Loop;
  private readonly alertClockLoop: Loop;
  private readonly subscriberMailLoop: Loop;
  private stopHearingChanges: (() => void) | null = null;
  /** The looks for work that may wait in the store, one statement for all (src/server/scheduler/sweeps.ts). */
  readonly sweeper: Sweeper;
  private readonly wakeups: QueueWakeups;
  private readonly dueProbeQuiet = new DueProbeQuiet();
  private readonly log: FastifyBaseLogger;
  private readonly background: boolean;
  private sampledMinute = -1;
  /** The UTC day the server last warned that its PGlite store holds more runs than it suits. */
  private storeSizeWarnedDay = -1;
  private readonly pgliteAdvisedRuns: number;

  constructor(
    readonly db: Db,
    readonly publicUrl: string,
    readonly dataDir: string,
    log: FastifyBaseLogger,
    private readonly alerting: AlertingConfig,
    private readonly retentionDays: number,
    options: RunServiceOptions = {},
  ) {
    const settings = { ...DEFAULTS, ...withoutUndefined(options) };
    this.log = log;
    this.clock = options.clock ?? systemClock;
    this.background = options.background ?? true;
    this.completionPollMs = settings.completionPollMs;
    this.agentFreshMs = settings.leaseTtlMs;
    this.pgliteAdvisedRuns = settings.pgliteAdvisedRuns;
    this.gateway = new Gateway({ db, clock: this.clock, events: this.events, log, settings, publicUrl });
    this.wakeups = new QueueWakeups(
      {
        enqueued: (queue) => this.events.emit('enqueued', queue),
        ahead: (queue) => this.events.emit('ahead', queue),
        due: (queue, wake) => this.events.emit('due', queue, wake),
      },
      this.clock,
    );
    this.alerts = new AlertDelivery(db, { publicUrl, alerting }, this.clock, log);
    // Woken by finished sessions that wrote notifications, and by the sweep that finds any due.
    this.deliveryLoop = new Loop('alert delivery', null, () => this.deliveryTick(), log);
    // Woken by the sweep that finds work for them: an idle second asks the store once for every look.
    this.alertClockLoop = new Loop('alert clock', null, () => this.alertClockTick(), log);
    this.subscriberMailLoop = new Loop('subscriber mail', null, () => this.subscriberMailTick(), log);
    this.sweeper = new Sweeper(
      db,
      [
        {
          name: 'lease reaper',
          probe: REAPER_PROBE,
          everyMs: settings.reaperTickMs,
          run: () => this.reapTick(),
        },
        {
          name: 'overdue heartbeats',
          probe: OVERDUE_PROBE,
          everyMs: settings.overdueHeartbeatTickMs,
          run: () => this.overdueHeartbeatTick(),
        },
        {
          name: 'alert delivery',
          probe: DELIVERY_PROBE,
          everyMs: settings.alertDeliveryPollMs,
          run: async () => this.deliveryLoop.wake(),
        },
        // Cancels asked for on another replica, or while the agent was away: those of this replica go at once.
        {
          name: 'forwarding cancels',
          probe: CANCELS_PROBE,
          everyMs: settings.dispatchPollMs,
          run: () => this.gateway.forwardCancels(),
        },
        {
          name: 'alert clock',
          probe: ALERT_CLOCK_PROBE,
          everyMs: settings.alertClockTickMs,
          run: async () => this.alertClockLoop.wake(),
        },
        // PGlite has no autovacuum to keep its planner's view of the tables current and their indexes free of
        // dead entries.
        ...(db.kind === 'pglite'
          ? [
              {
                name: 'vacuuming tables',
                probe: VACUUM_DUE_PROBE,
                everyMs: VACUUM_LOOK_MS,
                run: async () => void (await vacuumTablesDue(db)),
              },
              {
                name: 'analyzing changed tables',
                probe: CHANGED_TABLES_PROBE,
                everyMs: ANALYZE_LOOK_MS,
                run: async () => void (await analyzeChangedTables(db, this.clock())),
              },
            ]
          : []),
        // Only with a mail server: without one no mail is sent.
        ...(alerting.smtpUrl
          ? [
              {
                name: 'subscriber mail',
                probe: SUBSCRIBER_MAIL_PROBE,
                everyMs: settings.subscriberMailTickMs,
                run: async () => this.subscriberMailLoop.wake(),
              },
            ]
          : []),
      ],
      this.clock,
      log,
    );
    const quiet = this.dueProbeQuiet;
    this.schedulerLoop = new Loop(
      'scheduler',
      settings.schedulerTickMs,
      () => this.scheduleTick(),
      log,
      this.sleep((now) => quiet.quietLeftMs(now)),
    );
    this.loops = [
      this.schedulerLoop,
      new Loop(
        'metrics sampler',
        settings.metricsTickMs,
        () => this.metricsTick(),
        log,
        // From one minute's sample to the next minute.
        this.sleep((now) =>
          minuteOf(new Date(now)).getTime() === this.sampledMinute ? this.sampledMinute + 60_000 - now : 0,
        ),
      ),
      this.alertClockLoop,
      new Loop('retention', settings.retentionTickMs, async () => void (await this.retentionTick()), log),
      this.subscriberMailLoop,
      this.deliveryLoop,
    ];
  }

  publish(effects: RunEffects): void {
    this.events.publish(effects);
    this.wakeups.schedule(effects.dueLater);
    for (const [sessionId, ended] of effects.finishedSessions) {
      this.log.info({ sessionId, ...ended }, 'check session finished');
    }
    for (const { sessionId, error } of effects.alertingFailures) {
      this.log.error({ err: error, sessionId }, 'alerting failed for a finished session; its result is kept');
    }
    // Notifications written by finished sessions are sent now rather than at the next poll.
    if (effects.notificationsWritten > 0) this.deliveryLoop.wake();
  }

  /** Escalates TIME_BASED failures and sends reminders that are due. */
  async alertClockTick(): Promise<void> {
    if ((await alertClockTick(this.db, this.clock())) > 0) this.deliveryLoop.wake();
  }

  /** Sends the due notifications of the outbox, batch after batch. */
  async deliveryTick(): Promise<void> {
    while ((await this.alerts.deliverDue()) > 0) {}
  }

  /**
   * A loop's sleep (Loop's `waitMs`), on the system clock only: timers keep that clock, not a test's. The scheduler
   * sleeps through the ticks that would stay quiet anyway (quiet.ts), so an idle second wakes it once, not ten times.
   */
  private sleep(leftMs: (nowMs: number) => number): () => number {
    return () => (this.clock === systemClock ? leftMs(Date.now()) : 0);
  }

  /** Schedules the current interval of every due check (once across restarts and replicas). */
  async scheduleTick(): Promise<void> {
    const now = this.clock();
    await this.dueProbeQuiet.tick(now, (dueSoon) =>
      scheduleDueChecks(this.db, now, (effects) => this.publish(effects), dueSoon),
    );
  }

  /** Fails the heartbeat checks whose ping is overdue (once per missed period across replicas). */
  async overdueHeartbeatTick(): Promise<void> {
    this.publish(await failOverdueHeartbeats(this.db, this.clock(), this.onSessionFinished));
  }

  /** Sends the due mails to status-page subscribers, batch after batch. */
  async subscriberMailTick(): Promise<void> {
    const settings = { publicUrl: this.publicUrl, ...this.alerting };
    while ((await deliverSubscriberMails(this.db, settings, this.clock())) > 0) {}
  }

  /** Requeues runs whose lease ran out and expires runs no agent took in time. */
  async reapTick(): Promise<void> {
    this.publish(await reapLostLeases(this.db, this.clock(), this.onSessionFinished));
    this.publish(await expireUntakenRuns(this.db, this.clock(), this.onSessionFinished));
  }

  /** Samples the queues once per minute. */
  async metricsTick(): Promise<void> {
    const now = this.clock();
    const minute = minuteOf(now).getTime();
    if (minute === this.sampledMinute) return;
    await sampleLocationMetrics(this.db, now);
    this.sampledMinute = minute;
  }

  /** Rolls up closed hours and removes what is past its retention; logs what it removed. */
  async retentionTick(): Promise<RetentionOutcome> {
    const outcome = await runRetention(this.db, this.clock(), {
      retentionDays: this.retentionDays,
      dataDir: this.dataDir,
      pgliteAdvisedRuns: this.pgliteAdvisedRuns,
    });
    const { pruned } = outcome;
    if (Object.values(pruned).some((n) => n > 0)) {
      this.log.info(
        { before: outcome.cutoff.toISOString(), ...pruned },
        'results past their retention removed',
      );
    }
    this.warnOfStoreSize(outcome.pgliteRunsAboveAdvised);
    return outcome;
  }

  /** Once a day at most, while the PGlite store holds more runs than it suits. */
  private warnOfStoreSize(runs: number | null): void {
    const day = Math.floor(this.clock().getTime() / DAY_MS);
    if (runs === null || day === this.storeSizeWarnedDay) return;
    this.storeSizeWarnedDay = day;
    this.log.warn(
      { storedRuns: runs, advisedRuns: this.pgliteAdvisedRuns, retentionDays: this.retentionDays },
      'the embedded PGlite store holds more runs than it suits: each VACUUM of them now holds the server for a second or more. Lower VANTAGE_RESULT_RETENTION_DAYS, or keep state in PostgreSQL (DATABASE_URL)',
    );
  }

  /** Takes the agent WebSocket on `app`'s server and starts the loops. */
  start(app: FastifyInstance): void {
    this.gateway.attach(app);
    this.gateway.start();
    if (this.background) {
      for (const loop of this.loops) loop.start();
      this.sweeper.start();
      // A check added or changed here is claimed without waiting for the sleep to end.
      this.stopHearingChanges = onSchedulesChanged(() => this.schedulerLoop.hurry());
    }
  }

  async stop(): Promise<void> {
    this.stopHearingChanges?.();
    await Promise.all([...this.loops.map((loop) => loop.stop()), this.sweeper.stop()]);
    this.wakeups.stop();
    await this.gateway.stop();
    closeMailTransports();
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The run services of a server over its store and settings. */
export function createRunServices(
  parts: Pick<ServerContext, 'db' | 'config' | 'log'>,
  options: RunServiceOptions = {},
): RunServices {
  const { db, config, log } = parts;
  return new RunServices(
    db,
    config.publicUrl,
    config.dataDir,
    log,
    config.alerting,
    config.resultRetentionDays,
    options,
  );
}

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { poolShape } from '../executors/pool/size.js';
import { defaultExecutors } from '../executors/registry.js';
import { createErrorReporter, type ErrorReporter } from '../observability/error-reporter.js';
import { batchedStdout, createLogger, type Logger } from '../observability/logger.js';
import { createAgentMetrics } from '../observability/metrics.js';
import { SecretValues } from '../observability/secret-values.js';
// The protocol's files, not its index.js: the message schemas (zod) are not loaded at start.
import type { RunMessage } from '../protocol/control-messages.js';
import type { SlotCounts } from '../protocol/slots.js';
import { idempotencyKey } from '../protocol/uploads.js';
import { AGENT_PATHS } from '../protocol/version.js';
import { version } from '../version.js';
import type { BusyWatchOptions } from './busy-watch.js';
import { bundledEngines, bundledRuntimes, probeCapabilities, scriptUsersSummary } from './capabilities.js';
import type { AgentConfig } from './config.js';
import { Backoff } from './connection/backoff.js';
import { ControlConnection } from './connection/client.js';
import { helloMessage } from './connection/hello.js';
import { loadProxySupport } from './connection/proxy.js';
import { ArtifactUploader } from './delivery/artifacts.js';
import { BundleFetcher } from './delivery/bundles.js';
import { ControlPlaneHttp } from './delivery/http-client.js';
import { ResultDelivery } from './delivery/results.js';
import { type HealthReport, startHealthServer } from './health/server.js';
import { loadAgentId } from './identity.js';
import { RunnerOnUse } from './runner-on-use.js';
import { sensitiveEnvValues, urlPasswords } from './sensitive.js';
import { gracefulShutdown } from './shutdown.js';
import { gathered } from './slots/gathered.js';
import { SlotLedger } from './slots/ledger.js';
import { SlotQueues } from './slots/queues.js';
import { ResultSpool } from './spool/spool.js';

/** Slots freed within this time of each other are granted in one credit message. */
const CREDIT_GATHER_MS = 10;
/**
 * While the control plane holds credit for half of a class's slots or more, slots of the class freed within this
 * time are granted together: at 30 runs/s, one credit message a second instead of one per phase step. Runs never
 * wait for it: the control plane can send that many at once, and once a burst takes it below half, the free slots
 * are granted within CREDIT_GATHER_MS.
 */
const CREDIT_LAZY_MS = 1000;

/** Knobs for tests; production uses the defaults. */
export interface AgentOptions {
  /** Where log lines go (stdout, batched, by default). */
  logDestination?: DestinationStream;
  /** Reconnect back-off (1 s doubling to 60 s). */
  reconnect?: { baseMs: number; maxMs: number };
  /** Wait after a fatal refusal (5 minutes). */
  fatalRetryMs?: number;
  /** Result delivery back-off (1 s doubling to 30 s). */
  deliveryRetry?: { baseMs: number; maxMs: number };
  /** How long a fresh result waits for others to share its batch upload (500 ms). */
  resultBatchLingerMs?: number;
  /** Called once the runner has loaded, at the first run (`vantage agent` then leaves its start-up mode). */
  onRunnerLoaded?: () => void;
  /** The CPUs AGENT_THREADS=auto sizes for (those this process may use). */
  cores?: number;
  /** When AGENT_THREADS=auto counts the main thread as busy (half of two 5-s windows in a row). */
  busyWatch?: BusyWatchOptions;
}

export interface AgentHandle {
  agentId: string;
  /** The port the health server listens on (useful with AGENT_HEALTH_PORT=0). */
  healthPort: number;
  log: Logger;
  /** Streams a run's artifacts to the control plane (for executors that produce them). */
  artifacts: ArtifactUploader;
  /** Graceful shutdown (readiness 503 at once); resolves when everything is closed. */
  stop(): Promise<void>;
  /** Waits for error reports under way (before a crash exit). */
  flushErrorReports(): Promise<void>;
}

/** A problem with the environment the agent was given; the CLI prints it as one line and exits 2. */
export class StartupError extends Error {}

/** Starts the agent: health server, spool replay, then the connection to the control plane. */
export async function startAgent(config: AgentConfig, options: AgentOptions = {}): Promise<AgentHandle> {
  const startedAt = Date.now();
  const secrets = new SecretValues([config.apiKey, ...urlPasswords(config)]);
  let reporter: ErrorReporter | undefined;
  const log = createLogger({
    level: config.logLevel,
    destination: options.logDestination ?? batchedStdout(),
    secrets,
    onError: (event) => reporter?.report(event),
  });

  let agentId: string;
  let spool: ResultSpool;
  const metrics = createAgentMetrics();
  try {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    agentId = await loadAgentId(config.dataDir);
    spool = await ResultSpool.open(join(config.dataDir, 'spool'), {
      maxBytes: config.spoolMaxBytes,
      log,
      onDropped: (count) => metrics.droppedResults(count),
      resultsMayFollow: () => ledger.busy(),
    });
  } catch (error) {
    throw new StartupError(`AGENT_DATA_DIR: cannot use ${config.dataDir}: ${(error as Error).message}`);
  }

  const http = new ControlPlaneHttp(config, agentId);
  reporter = createErrorReporter({
    enabled: config.externalObservability,
    agentVersion: version,
    secrets,
    envValues: sensitiveEnvValues(process.env),
    send: async (report) => {
      // Its x-agent-id tells the location's agents apart in GET /v1/private-locations/{id}/errors.
      const answer = await http.postJson(AGENT_PATHS.errors, report);
      if (answer.status >= 300) throw new Error(`the control plane answered ${answer.status}`);
    },
    onSendFailure: (error) => log.debug({ error: (error as Error).message }, 'an error report was not sent'),
  });
  const delivery = new ResultDelivery({
    spool,
    http,
    log,
    retry: options.deliveryRetry ?? { baseMs: 1000, maxMs: 30_000 },
    peerProtocolVersion: () => connection.protocolVersion,
    batchLingerMs: options.resultBatchLingerMs,
    runsInProgress: () => ledger.busy(),
    onDelivered: () => metrics.deliveredResult(),
  });

  const capacity: SlotCounts = { light: config.jobConcurrency, browser: config.browserConcurrency };
  const ledger = new SlotLedger(capacity);
  const queues = new SlotQueues(capacity);
  let stopping = false;
  let connectedOnce = false;
  let connection: ControlConnection;

  const grantCredit = () => {
    if (stopping || !connection.connected) return;
    const credits = ledger.takeGrant();
    if (credits.light + credits.browser > 0) connection.send({ type: 'credit', credits });
  };
  const grantSoon = gathered(grantCredit, CREDIT_GATHER_MS);
  const grantLater = gathered(grantCredit, CREDIT_LAZY_MS);
  const release = (runIds: string[]) => {
    for (let i = 0; i < runIds.length || i === 0; i += 1000) {
      connection.send({ type: 'release', runIds: runIds.slice(i, i + 1000) });
    }
  };
  const artifacts = new ArtifactUploader({ http, log });
  const runner = new RunnerOnUse(
    {
      agentId,
      executors: defaultExecutors,
      artifacts,
      bundles: new BundleFetcher(http),
      ledger,
      queues,
      spool,
      secrets,
      metrics,
      log,
      limitScale: config.runLimitScale,
      // An agent's runs have no end in prospect: `auto` sizes its lanes by the cores and JOB_CONCURRENCY alone, and
      // starts them once the main thread is busy (below that, a thread only adds its hand-overs: docs/agent.md).
      pool: {
        ...poolShape(config.threads, config.jobConcurrency, Number.POSITIVE_INFINITY, options.cores),
        concurrency: config.jobConcurrency,
        holdAhead: false,
        start: config.threads === 'auto' ? 'when-busy' : 'now',
        busy: options.busyWatch,
      },
      peerProtocolVersion: () => connection.protocolVersion,
      onSpooled: () => delivery.notify(),
      onSlotFreed: (slotClass) => (ledger.wellGranted(slotClass) ? grantLater() : grantSoon()),
    },
    options.onRunnerLoaded,
  );
  /** Runs whose leases should carry on: held ones, and finished ones whose result is not acknowledged yet. */
  const leasedRunIds = () =>
    [...new Set([...runner.heldRunIds(), ...spool.entries().map((e) => e.runId)])].slice(0, 1000);

  const onRun = (run: RunMessage) =>
    runner.withRunner(run.runId, (loaded) => {
      if (stopping) {
        release([run.runId]);
        return;
      }
      const outcome = loaded.accept(run, spool.holds(idempotencyKey(run.runId, run.attempt)));
      if (outcome === 'accepted') {
        // A burst took the control plane's credit below half: slots whose grant waits (grantLater) go now.
        if (ledger.runningShort()) grantSoon();
      } else if (outcome === 'no-credit') {
        log.warn({ runId: run.runId }, 'received a run without credit for it; handing it back');
        release([run.runId]);
      } else if (outcome === 'duplicate') {
        log.warn({ runId: run.runId }, 'received a run this agent already has; not running it twice');
        delivery.retryNow();
        grantCredit();
      }
    });

  const capabilities = await probeCapabilities();
  const runtimes = bundledRuntimes();
  const engines = bundledEngines();
  const scriptUsers = scriptUsersSummary(capacity.light + capacity.browser);
  const hello = (protocolVersion: number) =>
    helloMessage(
      { agentId, capabilities, runtimes, engines, slots: capacity, running: leasedRunIds() },
      protocolVersion,
    );
  const reconnect = options.reconnect ?? { baseMs: 1000, maxMs: 60_000 };
  await loadProxySupport(config.proxy);
  connection = new ControlConnection({
    url: config.apiUrl.replace(/^http/, 'ws') + AGENT_PATHS.connect,
    headers: ControlPlaneHttp.credentials(config),
    proxy: config.proxy,
    log,
    backoff: new Backoff(reconnect.baseMs, reconnect.maxMs),
    fatalRetryMs: options.fatalRetryMs ?? 5 * 60_000,
    hello,
    heartbeat: () => ({ running: leasedRunIds(), queued: runner.count('queued') }),
    onWelcome: (welcome) => {
      if (connectedOnce) metrics.reconnected();
      connectedOnce = true;
      log.info({ location: welcome.location }, 'connected to the control plane');
      ledger.voidGrants();
      grantCredit();
      delivery.retryNow();
    },
    onRun,
    onCancel: (runId) => {
      const notHeld = () => log.debug({ runId }, 'cancel for a run this agent does not hold');
      if (!runner.started) notHeld();
      else runner.withRunner(null, (loaded) => loaded.cancel(runId) || notHeld());
    },
    onDisconnect: () => ledger.voidGrants(),
  });

  const status = (): HealthReport['status'] => {
    if (stopping) return 'stopping';
    if (connection.connected) return 'ok';
    return connectedOnce ? 'disconnected' : 'starting';
  };
  metrics.observe({
    running: (slotClass) => runner.count('running', slotClass),
    queued: () => runner.count('queued'),
    freeSlots: (slotClass) => ledger.free(slotClass),
    connected: () => connection.connected,
    spooledResults: () => spool.count,
    spoolBytes: () => spool.bytes,
    oldestSpooledAt: () => spool.oldestAt,
  });
  let health: Awaited<ReturnType<typeof startHealthServer>>;
  try {
    health = await startHealthServer(config.healthPort, {
      metrics,
      // Not ready while results cannot reach the disk: a restart would lose the ones held in memory.
      ready: () => connectedOnce && !stopping && spool.writeFailure === null,
      report: () => ({
        status: status(),
        version,
        location: config.location,
        connected: connection.connected,
        running: runner.count('running'),
        queued: runner.count('queued'),
        threads: runner.threads,
        spooled: spool.count,
        spoolError: spool.writeFailure,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      }),
    });
  } catch (error) {
    await http.close();
    throw new StartupError((error as Error).message);
  }

  delivery.start();
  connection.start();
  log.info(
    {
      agentId,
      version,
      location: config.location,
      apiUrl: config.apiUrl,
      healthPort: health.port,
      slots: capacity,
      spooled: spool.count,
      externalObservability: config.externalObservability,
      runtimes,
      engines,
      scriptUsers: scriptUsers.mode,
    },
    'agent started',
  );
  if (scriptUsers.warning) log.warn(scriptUsers.warning);

  let stopped: Promise<void> | null = null;
  return {
    agentId,
    healthPort: health.port,
    log,
    artifacts,
    flushErrorReports: () => reporter?.flush() ?? Promise.resolve(),
    stop() {
      stopped ??= gracefulShutdown(
        {
          stopTakingWork: () => {
            stopping = true;
            queues.pause();
            const released = runner.releaseUnstarted();
            release(released);
            return released.length;
          },
          runsDone: () => runner.idle(),
          cancelRuns: () => runner.cancelRunning(),
          flushResults: (deadline) => delivery.flush(deadline),
          close: async () => {
            await connection.close();
            await Promise.all([delivery.stop(), artifacts.close(), runner.close()]);
            await Promise.race([reporter?.flush(), new Promise((r) => setTimeout(r, 2000).unref())]);
            await health.close();
            await http.close();
          },
        },
        config.shutdownGraceSeconds * 1000,
        log,
      );
      return stopped;
    },
  };
}

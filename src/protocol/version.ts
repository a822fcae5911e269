/**
 * The newest agent ⇄ control-plane protocol version, the one an agent offers first; both sides refuse a handshake
 * with a version they do not speak (docs/protocol.md, Versioning). Version 2 added hello's `engines`, the
 * results' `permanentError` and the batch upload of results (`AGENT_PATHS.resultBatch`); version 3 the run's
 * `startInMs` (a run sent ahead of its start).
 */
export const PROTOCOL_VERSION = 3;
/** Every version this code speaks, oldest first: a control plane takes them all, an agent falls back to them. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1, 2, 3];
/** The first version whose runs may come ahead of their start, with `startInMs`. */
export const RUNS_AHEAD_VERSION = 3;

/** Paths of the protocol under the control plane's base URL. */
export const AGENT_PATHS = {
  connect: '/v1/agent/connect',
  results: '/v1/agent/results',
  /** From version 2 on: up to `PROTOCOL_LIMITS.resultBatchSize` results in one request. */
  resultBatch: '/v1/agent/results/batch',
  artifact: (runId: string, name: string) =>
    `/v1/agent/runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(name)}`,
  errors: '/v1/agent/errors',
  bundle: (runId: string) => `/v1/agent/runs/${encodeURIComponent(runId)}/bundle`,
} as const;

/** Limits shared by both sides. */
export const PROTOCOL_LIMITS = {
  /** Largest artifact accepted, in bytes (150 MB). */
  artifactBytes: 150 * 1024 * 1024,
  /**
   * Largest result upload, in bytes: an API check's 25 MB body fits with room to spare; an agent cuts the longest
   * texts of a larger result (with a note) rather than send one the control plane refuses.
   */
  resultBytes: 64 * 1024 * 1024,
  /** Most results in one batch upload. */
  resultBatchSize: 100,
  /** Largest batch upload, in bytes; a larger result goes on its own. */
  resultBatchBytes: 16 * 1024 * 1024,
  /** How often an agent sends a heartbeat. */
  heartbeatIntervalMs: 10_000,
  /** A lease lasts this long after the last heartbeat that named the run. */
  leaseTtlMs: 45_000,
  /**
   * From version 3 on, how long before its start a lightweight run may be sent: the agent holds it, on its slot,
   * for the run's `startInMs`. One lease then takes a second of runs instead of one per phase step.
   */
  startAheadMs: 1_000,
  /** The longest `startInMs` an agent waits: a longer one (a broken peer) is cut to it. */
  maxStartInMs: 10_000,
  /** Largest WebSocket message, in bytes. */
  maxMessageBytes: 16 * 1024 * 1024,
} as const;

/** WebSocket close codes of the protocol (4000–4999 are for applications). */
export const CLOSE_CODES = {
  unsupportedProtocol: 4400,
  revoked: 4403,
  replaced: 4409,
  shuttingDown: 4503,
} as const;

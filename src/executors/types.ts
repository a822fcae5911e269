import type { CheckOf, CheckType, Masker, ResultDetail, VariableSet } from '../checks/index.js';

/** A client certificate for mTLS, chosen by the host it is for (wildcards allowed: `*.example.com`). */
export interface ClientCertificate {
  host: string;
  cert: string;
  key: string;
  ca?: string | null;
  passphrase?: string | null;
}

/** What a run gives its executor besides the check. */
export interface ExecutionContext {
  /** Aborted when the run is cancelled or reaches its kind's execution limit; executors stop promptly. */
  signal: AbortSignal;
  variables: VariableSet;
  /** Masks secret values; every string an executor puts in its result or error passes through it. */
  mask: Masker;
  runLocation: string;
  /** Identifies this run (and attempt) for logs and scripts. */
  runId: string;
  clientCertificates: readonly ClientCertificate[];
}

/**
 * A file an attempt produced (screenshot, trace, video, report) on local disk. The caller uploads or keeps it,
 * then removes it; the result's `assets` list it under the same name with `url` null until then.
 */
export interface LocalArtifact {
  name: string;
  contentType: string;
  size: number;
  path: string;
}

/** What one attempt of a check found. Flags are raw: shouldFail is applied by the caller. */
export interface Attempt {
  hasErrors: boolean;
  hasFailures: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  /** Milliseconds; for HTTP the `total` phase. */
  responseTime: number;
  startedAt: Date;
  stoppedAt: Date;
  /** True when nothing answered at all (no HTTP status, no connection): a NETWORK_ERROR for retries. */
  networkError: boolean;
  /** True when every attempt would fail the same way (a missing runtime, an undefined variable): never retried. */
  permanentError?: boolean;
  /** One line saying why the attempt failed (error or first failing assertion), secrets masked; null when it passed. */
  error: string | null;
  /** The kind's detail object under its key, e.g. `{apiCheckResult: …}`. */
  detail: ResultDetail;
  /** Files of the attempt for the caller (script kinds); see LocalArtifact. */
  artifacts?: LocalArtifact[];
}

export type Executor<K extends CheckType = CheckType> = (
  check: CheckOf<K>,
  context: ExecutionContext,
) => Promise<Attempt>;

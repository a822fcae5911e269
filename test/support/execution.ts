import { secretMasker, type Variable, VariableSet } from '../../src/checks/index.js';
import type { ClientCertificate, ExecutionContext } from '../../src/executors/types.js';

/** What a run gives an executor, as the session runner would build it, for executor tests. */
export function runContext(
  options: { signal?: AbortSignal; variables?: Variable[]; clientCertificates?: ClientCertificate[] } = {},
): ExecutionContext {
  return {
    signal: options.signal ?? new AbortController().signal,
    variables: new VariableSet(options.variables ?? []),
    mask: secretMasker([]),
    runLocation: 'test',
    runId: 'test-run',
    clientCertificates: options.clientCertificates ?? [],
  };
}

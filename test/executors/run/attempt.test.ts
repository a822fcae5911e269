import { describe, expect, it } from 'vitest';
import { type Check, parseCheck, secretMasker, VariableSet } from '../../../src/checks/index.js';
import { failedAttempt } from '../../../src/executors/failed-attempt.js';
import type { ExecutorRegistry } from '../../../src/executors/registry.js';
import { runAttempt } from '../../../src/executors/run/attempt.js';
import type { Executor } from '../../../src/executors/types.js';

// The executors here stand in for a misbehaving one (never returning, throwing): the runner's own guard is tested.
const check = (() => {
  const parsed = parseCheck({ name: 'Stand-in', checkType: 'URL', request: { url: 'http://127.0.0.1:9/' } });
  if (!parsed.ok) throw new Error('the check is valid');
  return parsed.value as Check;
})();

function attemptWith(execute: Executor, options: { signal?: AbortSignal; limitMs?: number } = {}) {
  return runAttempt(check, {
    executors: { URL: execute } as unknown as ExecutorRegistry,
    variables: new VariableSet(),
    mask: secretMasker([]),
    runLocation: 'local',
    clientCertificates: [],
    ...options,
  });
}

describe('runAttempt', () => {
  it('ends an attempt whose executor ignores its signal, once the limit and the grace after it have passed', async () => {
    let sawAbort = false;
    const end = await attemptWith(
      async (_check, { signal }) => {
        signal.addEventListener('abort', () => {
          sawAbort = true;
        });
        return new Promise(() => {});
      },
      { limitMs: 50 },
    );
    expect(sawAbort).toBe(true);
    expect(end).toMatchObject({ timedOut: true, cancelled: false });
    expect(end.attempt).toMatchObject({
      hasErrors: true,
      error: 'the run exceeded its execution limit of 50 ms',
    });
  });

  it('keeps the attempt of an executor that stops on cancel, marked cancelled', async () => {
    const controller = new AbortController();
    const end = await attemptWith(
      (_check, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve(failedAttempt('stopped by its signal')));
          setTimeout(() => controller.abort(), 10);
        }),
      { signal: controller.signal },
    );
    expect(end).toMatchObject({ timedOut: false, cancelled: true });
    expect(end.attempt.error).toBe('the run was cancelled');
  });

  it('gives an executor of a cancelled run an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    let aborted = false;
    const end = await attemptWith(
      async (_check, { signal }) => {
        aborted = signal.aborted;
        return failedAttempt('did not start');
      },
      { signal: controller.signal },
    );
    expect(aborted).toBe(true);
    expect(end.cancelled).toBe(true);
  });

  it('fails the attempt of an executor that throws, at once or later, with its message', async () => {
    const thrown = await attemptWith(() => {
      throw new Error('at once');
    });
    const rejected = await attemptWith(async () => {
      throw new Error('later');
    });
    expect(thrown.attempt.error).toBe('internal error in the URL executor: at once');
    expect(rejected.attempt.error).toBe('internal error in the URL executor: later');
    expect(rejected).toMatchObject({ timedOut: false, cancelled: false });
  });
});

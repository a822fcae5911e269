import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { overMaxResponseTimeMessage, startDeadline } from '../../src/executors/deadline.js';

describe('startDeadline', () => {
  it('fires at maxResponseTime and says so', async () => {
    const deadline = startDeadline(new AbortController().signal, 20);
    expect(deadline.reason()).toBeNull();
    await sleep(60);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.reason()).toBe('overMaxResponseTime');
    deadline.dispose();
  });

  it('fires when the run stops first, and keeps that reason past maxResponseTime', async () => {
    const run = new AbortController();
    const deadline = startDeadline(run.signal, 40);
    run.abort(new Error('cancelled'));
    expect(deadline.reason()).toBe('runStopped');
    await sleep(80);
    expect(deadline.reason()).toBe('runStopped');
    deadline.dispose();
  });

  it('is stopped from the start for a run already stopped', () => {
    const run = new AbortController();
    run.abort();
    const deadline = startDeadline(run.signal, null);
    expect(deadline.reason()).toBe('runStopped');
    deadline.dispose();
  });

  it('never fires after dispose, nor without a maxResponseTime', async () => {
    const disposed = startDeadline(new AbortController().signal, 20);
    disposed.dispose();
    const unlimited = startDeadline(new AbortController().signal, null);
    await sleep(60);
    expect(disposed.reason()).toBeNull();
    expect(unlimited.reason()).toBeNull();
    unlimited.dispose();
  });
});

describe('overMaxResponseTimeMessage', () => {
  it('is the one wording of a response over maxResponseTime', () => {
    expect(overMaxResponseTimeMessage(312.5, 300)).toBe(
      'response time 312.5 ms exceeded maxResponseTime of 300 ms',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { follow } from '../../../src/executors/run/follow-signal.js';

describe('sessions following a shared signal', () => {
  it('abort with it, with its reason, except those that stopped following', () => {
    const shared = new AbortController();
    const sessions = Array.from({ length: 50 }, () => follow(shared.signal));
    const done = sessions.slice(0, 5);
    for (const session of done) session.release();
    shared.abort(new Error('Ctrl-C'));
    for (const session of sessions.slice(5)) expect(session.signal.reason).toEqual(new Error('Ctrl-C'));
    for (const session of done) expect(session.signal.aborted).toBe(false);
  });

  it('start aborted when the shared signal already is', () => {
    const shared = AbortSignal.abort('gone');
    expect(follow(shared).signal.reason).toBe('gone');
  });

  it('share one listener on it, so many sessions raise no leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const shared = new AbortController();
    const sessions = Array.from({ length: 100 }, () => follow(shared.signal));
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    for (const session of sessions) session.release();
  });
});

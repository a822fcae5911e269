import { describe, expect, it } from 'vitest';
import { alertSettingsOf } from '../../../src/server/alerts/settings.js';
import {
  type AlertState,
  afterSession,
  afterTime,
  passingState,
  type SessionOutcome,
  type StepInput,
} from '../../../src/server/alerts/state-machine.js';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const MINUTE = 60_000;

/** Feeds sessions one minute apart through the state machine; returns the alerts in order. */
function feed(outcomes: SessionOutcome[], options: { silenced?: boolean[]; settings?: unknown } = {}) {
  let state: AlertState = passingState(new Date(T0));
  let episodes = 0;
  const alerts: (string | null)[] = [];
  const episodeIds: (string | null)[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    const now = new Date(T0 + i * MINUTE);
    const input: StepInput = {
      settings: alertSettingsOf(options.settings ?? {}),
      now,
      silenced: options.silenced?.[i] ?? false,
      newEpisodeId: () => `episode-${++episodes}`,
    };
    const step = afterSession(state, outcome, now, input);
    alerts.push(step.alert);
    episodeIds.push(step.next.episodeId);
    state = step.next;
  }
  return { alerts, episodeIds, state };
}

describe('the alert state machine', () => {
  it('turns a degradation that fails into one episode: degraded, failure, recovery', () => {
    const { alerts, episodeIds } = feed(['DEGRADED', 'FAILED', 'FAILED', 'PASSED']);
    expect(alerts).toEqual(['ALERT_DEGRADED', 'ALERT_FAILURE', null, 'ALERT_RECOVERY']);
    expect(episodeIds.slice(0, 3)).toEqual(['episode-1', 'episode-1', 'episode-1']);
  });

  it('eases a failure into degraded, then recovers from degraded', () => {
    const { alerts, state } = feed(['FAILED', 'DEGRADED', 'DEGRADED', 'PASSED']);
    expect(alerts).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE_DEGRADED', null, 'ALERT_DEGRADED_RECOVERY']);
    expect(state).toMatchObject({ state: 'PASSING', episodeId: null, failedSessions: 0 });
  });

  it('never announces the end of a failure that was silenced when it began', () => {
    const { alerts } = feed(['FAILED', 'FAILED', 'PASSED'], { silenced: [true, false, false] });
    expect(alerts).toEqual([null, null, null]);
  });

  it('stays silent about a recovery while silenced, though the failure was sent', () => {
    const { alerts, state } = feed(['FAILED', 'PASSED', 'FAILED'], { silenced: [false, true, false] });
    expect(alerts).toEqual(['ALERT_FAILURE', null, 'ALERT_FAILURE']);
    expect(state.state).toBe('FAILING');
  });

  it('reminds until it recovers when amount is 100000', () => {
    const settings = alertSettingsOf({ reminders: { amount: 100_000, interval: 5 } });
    let state = feed(['FAILED'], { settings: { reminders: { amount: 100_000, interval: 5 } } }).state;
    const sent: (string | null)[] = [];
    for (let minute = 1; minute <= 60; minute++) {
      const step = afterTime(state, {
        settings,
        now: new Date(T0 + minute * MINUTE),
        silenced: false,
        newEpisodeId: () => 'x',
      });
      sent.push(step.alert);
      state = step.next;
    }
    expect(sent.filter((a) => a === 'ALERT_FAILURE_REMAIN')).toHaveLength(12);
  });
});

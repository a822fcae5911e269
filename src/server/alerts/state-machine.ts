import type { AlertSettings } from './settings.js';

export const ALERT_STATES = ['PASSING', 'DEGRADED', 'FAILING'] as const;
export type AlertStateName = (typeof ALERT_STATES)[number];

export const ALERT_TYPES = [
  'ALERT_FAILURE',
  'ALERT_FAILURE_REMAIN',
  'ALERT_FAILURE_DEGRADED',
  'ALERT_RECOVERY',
  'ALERT_DEGRADED',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_SSL',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** What a finished session means for its check's alert state; CANCELLED sessions never get here. */
export type SessionOutcome = 'PASSED' | 'DEGRADED' | 'FAILED';

/** The alert state of one check (docs/alerting.md, States and alert types). */
export interface AlertState {
  state: AlertStateName;
  failedSessions: number;
  failingSince: Date | null;
  escalateAt: Date | null;
  stateSince: Date;
  episodeId: string | null;
  episodeSent: boolean;
  remindersSent: number;
  nextReminderAt: Date | null;
  sslAlertedAt: Date | null;
}

export function passingState(now: Date): AlertState {
  return {
    state: 'PASSING',
    failedSessions: 0,
    failingSince: null,
    escalateAt: null,
    stateSince: now,
    episodeId: null,
    episodeSent: false,
    remindersSent: 0,
    nextReminderAt: null,
    sslAlertedAt: null,
  };
}

/** The state after a step, and the alert it sends (null: none, or silenced). */
export interface Step {
  next: AlertState;
  alert: AlertType | null;
}

export interface StepInput {
  settings: AlertSettings;
  now: Date;
  /** Muted, or in a maintenance window that silences alerts: the state moves, nothing is sent. */
  silenced: boolean;
  /** A fresh id for a new episode. */
  newEpisodeId: () => string;
}

const MINUTE_MS = 60_000;

/** Moves the state by one counted session that started at `startedAt`. */
export function afterSession(
  prev: AlertState,
  outcome: SessionOutcome,
  startedAt: Date,
  input: StepInput,
): Step {
  const { now, silenced } = input;
  const sslAlertedAt = prev.sslAlertedAt;
  if (outcome === 'PASSED') {
    const next = { ...passingState(prev.state === 'PASSING' ? prev.stateSince : now), sslAlertedAt };
    const announce = prev.episodeSent && !silenced;
    if (prev.state === 'FAILING') return { next, alert: announce ? 'ALERT_RECOVERY' : null };
    if (prev.state === 'DEGRADED') return { next, alert: announce ? 'ALERT_DEGRADED_RECOVERY' : null };
    return { next, alert: null };
  }
  if (outcome === 'DEGRADED') {
    const calm = {
      failedSessions: 0,
      failingSince: null,
      escalateAt: null,
      remindersSent: 0,
      nextReminderAt: null,
    };
    if (prev.state === 'DEGRADED') return { next: { ...prev, ...calm }, alert: null };
    if (prev.state === 'FAILING') {
      const next = { ...prev, ...calm, state: 'DEGRADED' as const, stateSince: now };
      return { next, alert: prev.episodeSent && !silenced ? 'ALERT_FAILURE_DEGRADED' : null };
    }
    const next: AlertState = {
      ...prev,
      ...calm,
      state: 'DEGRADED',
      stateSince: now,
      episodeId: input.newEpisodeId(),
      episodeSent: !silenced,
    };
    return { next, alert: silenced ? null : 'ALERT_DEGRADED' };
  }
  const failing: AlertState = {
    ...prev,
    failedSessions: prev.failedSessions + 1,
    failingSince: prev.failingSince ?? startedAt,
  };
  if (prev.state === 'FAILING') return { next: failing, alert: null };
  const { settings } = input;
  const since = failing.failingSince as Date;
  const reached =
    settings.escalationType === 'RUN_BASED'
      ? failing.failedSessions >= settings.failedRunThreshold
      : now.getTime() - since.getTime() >= settings.minutesFailingThreshold * MINUTE_MS;
  if (reached) return escalate(failing, input);
  const escalateAt =
    settings.escalationType === 'TIME_BASED'
      ? new Date(since.getTime() + settings.minutesFailingThreshold * MINUTE_MS)
      : null;
  return { next: { ...failing, escalateAt }, alert: null };
}

/** Into FAILING: one ALERT_FAILURE (unless silenced), and the first reminder planned. */
function escalate(prev: AlertState, input: StepInput): Step {
  const { now, silenced, settings } = input;
  const next: AlertState = {
    ...prev,
    state: 'FAILING',
    stateSince: now,
    escalateAt: null,
    // A degradation that turns into a failure stays one episode: its receivers resolve it once.
    episodeId: prev.state === 'DEGRADED' && prev.episodeId ? prev.episodeId : input.newEpisodeId(),
    episodeSent: (prev.state === 'DEGRADED' && prev.episodeSent) || !silenced,
    remindersSent: 0,
    nextReminderAt: nextReminder(now, 0, settings),
  };
  return { next, alert: silenced ? null : 'ALERT_FAILURE' };
}

function nextReminder(now: Date, sent: number, settings: AlertSettings): Date | null {
  const { amount, intervalMinutes } = settings.reminders;
  return sent < amount ? new Date(now.getTime() + intervalMinutes * MINUTE_MS) : null;
}

/**
 * Moves the state by the passing of time alone: a TIME_BASED failure that has lasted long enough escalates, and
 * a FAILING check whose reminder is due gets it (only when its failure was sent and it is not silenced now).
 */
export function afterTime(prev: AlertState, input: StepInput): Step {
  const { now, settings } = input;
  if (prev.state !== 'FAILING' && prev.escalateAt && prev.escalateAt <= now) return escalate(prev, input);
  if (prev.state === 'FAILING' && prev.nextReminderAt && prev.nextReminderAt <= now) {
    const remindersSent = prev.remindersSent + 1;
    const next = { ...prev, remindersSent, nextReminderAt: nextReminder(now, remindersSent, settings) };
    return { next, alert: prev.episodeSent && !input.silenced ? 'ALERT_FAILURE_REMAIN' : null };
  }
  return { next: prev, alert: null };
}

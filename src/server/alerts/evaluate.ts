import { randomUUID } from 'node:crypto';
import { type RunSource, SSL_ALERT_MAX_DAYS } from '../../checks/index.js';
import { activeMaintenance, maintenanceTagsOf, matchesAny } from '../maintenance/active.js';
import { loadChecks, type StoredRunnableCheck } from '../sessions/checks.js';
import { effectiveCheck } from '../sessions/effective.js';
import type { ResultRow, SessionRow } from '../sessions/store.js';
import type { Db } from '../store/db.js';
import { channelSends, sslAlertThreshold, subscribedChannels } from './audience.js';
import { enqueueNotifications, type NewNotification } from './outbox.js';
import { sessionOutcome, soonestExpiry, tellingResult } from './session-outcome.js';
import { type AlertSettings, effectiveAlertSettings } from './settings.js';
import { type AlertType, afterSession, type StepInput } from './state-machine.js';
import { calmPassingState, lockAlertState, saveAlertState } from './state-store.js';
import { type AlertVariables, alertTitle, alertVariables, type CheckFacts } from './variables.js';

const DAY_MS = 86_400_000;

/** Whether a session moves its check's alert state: scheduled and API-triggered ones do; test sessions never. */
function countsForAlerting(session: Pick<SessionRow, 'run_source' | 'test_session_id'>): boolean {
  const source: RunSource = session.run_source;
  return session.test_session_id === null && !source.startsWith('TEST_') && !source.endsWith('_NO_RECORD');
}

/** A check as alerting sees it, with everything its notifications are decided by. */
export interface AlertingCheck {
  stored: StoredRunnableCheck;
  facts: CheckFacts;
  settings: AlertSettings;
  runParallel: boolean;
  /** Muted (the check or its group), or in a maintenance window in progress that silences alerts. */
  silenced: boolean;
}

/** Loads a check for alerting; null when it was deleted. */
export async function alertingCheck(
  db: Db,
  accountId: string,
  checkId: string,
  now: Date,
): Promise<AlertingCheck | null> {
  const [stored] = await loadChecks(db, { accountId, ids: [checkId] });
  if (!stored) return null;
  const [account] = await db.query<{ alert_settings: unknown }>(
    'SELECT alert_settings FROM accounts WHERE id = $1',
    [accountId],
  );
  const group = stored.group as Record<string, unknown> | null;
  const muted = stored.definition.muted === true || group?.muted === true;
  const silencedTags = muted ? null : (await activeMaintenance(db, accountId, now)).silencedTags;
  return {
    stored,
    facts: {
      id: stored.id,
      name: stored.name,
      checkType: stored.checkType,
      groupName: typeof group?.name === 'string' ? group.name : null,
      tags: stored.tags,
      sslCheckDomain:
        typeof stored.definition.sslCheckDomain === 'string' ? stored.definition.sslCheckDomain : null,
    },
    settings: effectiveAlertSettings(stored.definition, group, account?.alert_settings),
    runParallel: effectiveCheck(stored).runParallel,
    silenced: muted || matchesAny(maintenanceTagsOf(stored), silencedTags as Set<string>),
  };
}

/** Alerts that close (or ease) an episode: only channels that were told of the episode hear of its end. */
const FOLLOW_UPS: readonly AlertType[] = [
  'ALERT_RECOVERY',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_FAILURE_DEGRADED',
];

/** The channels that were sent an alert of this episode. */
async function toldChannels(db: Db, check: AlertingCheck, episodeId: string): Promise<Set<number>> {
  const rows = await db.query<{ channel_id: unknown }>(
    'SELECT DISTINCT channel_id FROM alert_notifications WHERE account_id = $1 AND check_id = $2 AND episode_id = $3',
    [check.stored.accountId, check.stored.id, episodeId],
  );
  return new Set(rows.map((r) => Number(r.channel_id)));
}

/**
 * One notification per subscribed channel that sends this type; a recovery only to the channels that were told
 * of the failure or degradation it ends.
 */
export async function notificationsFor(
  db: Db,
  check: AlertingCheck,
  type: AlertType,
  variables: AlertVariables,
  sessionId: string | null,
  episodeId: string,
): Promise<NewNotification[]> {
  const channels = await subscribedChannels(db, check.stored);
  const told = FOLLOW_UPS.includes(type) ? await toldChannels(db, check, episodeId) : null;
  return channels
    .filter((c) => !told || told.has(Number(c.id)))
    .filter((c) => channelSends(c.document, type, check.settings, variables.SSL_DAYS_REMAINING))
    .map((c) => ({
      accountId: check.stored.accountId,
      checkId: check.stored.id,
      channelId: Number(c.id),
      channelType: c.document.type,
      alertType: type,
      sessionId,
      episodeId,
      variables,
    }));
}

/** The same variables told as another type of alert. */
export function retitled(variables: AlertVariables, type: AlertType): AlertVariables {
  return { ...variables, ALERT_TYPE: type, ALERT_TITLE: alertTitle(type, variables) };
}

export const stepInput = (check: AlertingCheck, now: Date): StepInput => ({
  settings: check.settings,
  now,
  silenced: check.silenced,
  newEpisodeId: randomUUID,
});

/**
 * ALERT_SSL for a session whose runs saw a certificate within the threshold (of the check's settings or of a
 * subscribed channel), at most once a day per check; null when there is nothing to say.
 */
async function certificateAlert(
  tx: Db,
  check: AlertingCheck,
  session: SessionRow,
  finals: readonly ResultRow[],
  lastAlertedAt: Date | null,
  now: Date,
): Promise<NewNotification[] | null> {
  const expiry = soonestExpiry(finals);
  if (!expiry || check.silenced) return null;
  if (lastAlertedAt && now.getTime() - lastAlertedAt.getTime() < DAY_MS) return null;
  const channels = await subscribedChannels(tx, check.stored);
  if (expiry.daysRemaining > sslAlertThreshold(channels, check.settings)) return null;
  const vars = alertVariables('ALERT_SSL', check.facts, session, expiry.result, now);
  const episode = `ssl:${check.stored.id}:${now.toISOString().slice(0, 10)}`;
  return notificationsFor(tx, check, 'ALERT_SSL', vars, session.id, episode);
}

/**
 * Whether a finished session changes nothing and sends nothing, known from one read: it PASSED (so no location
 * failed or degraded, whatever the check's settings), its check's state is calm PASSING (which a pass leaves as
 * it is), and no certificate alert is possible (none seen within the largest threshold, or one sent within a
 * day). Read without the state's lock: a session finishing at the same time is then simply counted after this one.
 */
async function passesCalmly(
  tx: Db,
  session: SessionRow,
  status: SessionRow['status'],
  finals: readonly ResultRow[],
  now: Date,
): Promise<boolean> {
  if (status !== 'PASSED') return false;
  const calm = await calmPassingState(tx, session.account_id, session.check_id);
  if (!calm) return false;
  const expiry = soonestExpiry(finals);
  if (!expiry || expiry.daysRemaining > SSL_ALERT_MAX_DAYS) return true;
  return calm.sslAlertedAt !== null && now.getTime() - new Date(calm.sslAlertedAt).getTime() < DAY_MS;
}

/**
 * Applies a finished session to its check's alert state, in the transaction that finishes the session: the state
 * moves, and what it sends is written to the outbox in the same commit (docs/alerting.md, Delivery).
 */
export async function alertOnFinishedSession(
  tx: Db,
  session: SessionRow,
  status: SessionRow['status'],
  finals: readonly ResultRow[],
  now: Date,
): Promise<void> {
  if (!countsForAlerting(session)) return;
  if (await passesCalmly(tx, session, status, finals, now)) return;
  const check = await alertingCheck(tx, session.account_id, session.check_id, now);
  if (!check) return;
  const outcome = sessionOutcome({ status }, finals, check.runParallel, check.settings);
  if (outcome === null) return;
  const stored = await lockAlertState(tx, session.account_id, session.check_id, now);
  const step = afterSession(stored.state, outcome, session.started_at, stepInput(check, now));
  const telling = tellingResult(finals);
  const told = (type: AlertType) => alertVariables(type, check.facts, session, telling, now);
  const notifications: NewNotification[] = [];
  if (step.alert) {
    const episode = step.next.episodeId ?? stored.state.episodeId ?? randomUUID();
    notifications.push(
      ...(await notificationsFor(tx, check, step.alert, told(step.alert), session.id, episode)),
    );
  }
  const next = { ...step.next };
  const certificate = await certificateAlert(tx, check, session, finals, next.sslAlertedAt, now);
  if (certificate) {
    notifications.push(...certificate);
    next.sslAlertedAt = now;
  }
  const lastVariables = outcome === 'PASSED' ? null : told(step.alert ?? 'ALERT_FAILURE');
  await saveAlertState(tx, session.account_id, session.check_id, { state: next, lastVariables }, now);
  await enqueueNotifications(tx, notifications, now);
}

import { randomUUID } from 'node:crypto';
import { type RunSource, SSL_ALERT_MAX_DAYS } from '../../checks/index.js';
import { activeMaintenance, maintenanceTagsOf, matchesAny } from '../maintenance/active.js';
import { loadChecks, type StoredRunnableCheck } from '../sessions/checks.js';
import { effectiveCheck, isMuted } from '../sessions/effective.js';
import type { FinishedSession } from '../sessions/finish.js';
import type { ResultRow, SessionRow } from '../sessions/store.js';
import type { Db } from '../store/db.js';
import { channelSends, sslAlertThreshold, subscribedChannels } from './audience.js';
import { followIncident } from './incidents.js';
import { enqueueNotifications, type NewNotification } from './outbox.js';
import { sessionOutcome, soonestExpiry, tellingResult } from './session-outcome.js';
import { type AlertSettings, effectiveAlertSettings } from './settings.js';
import { type AlertType, afterSession, type StepInput } from './state-machine.js';
import {
  type CalmPassing,
  calmPassingStates,
  lockAlertStates,
  type StoredAlertState,
  sameAlertState,
  saveAlertState,
} from './state-store.js';
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
  return (await alertingChecks(db, accountId, [checkId], now)).get(checkId) ?? null;
}

/** Loads checks of an account for alerting, by id; deleted ones are missing. */
async function alertingChecks(
  db: Db,
  accountId: string,
  checkIds: readonly string[],
  now: Date,
): Promise<Map<string, AlertingCheck>> {
  const checks = await loadChecks(db, { accountId, ids: [...new Set(checkIds)] });
  if (checks.length === 0) return new Map();
  const [account] = await db.query<{ alert_settings: unknown }>(
    'SELECT alert_settings FROM accounts WHERE id = $1',
    [accountId],
  );
  const groupOf = (stored: StoredRunnableCheck) => stored.group as Record<string, unknown> | null;
  const silencedTags = checks.every(isMuted)
    ? new Set<string>()
    : (await activeMaintenance(db, accountId, now)).silencedTags;
  return new Map(
    checks.map((stored) => {
      const group = groupOf(stored);
      const check: AlertingCheck = {
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
        silenced: isMuted(stored) || matchesAny(maintenanceTagsOf(stored), silencedTags),
      };
      return [stored.id, check];
    }),
  );
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
 * Applies finished sessions to their checks' alert states, in the transaction that finishes them, oldest first:
 * each state moves, and what it sends is written to the outbox in the same commit (docs/alerting.md, Delivery).
 * The checks, their settings and their states are read once for all the sessions of an account. Returns how many
 * notifications it wrote.
 */
export async function alertOnFinishedSessions(
  tx: Db,
  finished: readonly FinishedSession[],
  now: Date,
): Promise<number> {
  const byAccount = new Map<string, FinishedSession[]>();
  for (const one of finished.filter((f) => countsForAlerting(f.session))) {
    byAccount.set(one.session.account_id, [...(byAccount.get(one.session.account_id) ?? []), one]);
  }
  let written = 0;
  for (const [accountId, sessions] of byAccount) written += await alertAccount(tx, accountId, sessions, now);
  return written;
}

/**
 * The finished sessions that may change something: a check whose sessions here all pass calmly is left out, known
 * from one read for the batch. A session passes calmly when it PASSED (so no location failed or degraded,
 * whatever the check's settings), its check's state is calm PASSING (which a pass leaves as it is), and no
 * certificate alert is possible (none seen within the largest threshold, or one sent within a day). Read without
 * the states' locks: a session finishing at the same time elsewhere is then simply counted after these.
 */
async function countedSessions(
  tx: Db,
  accountId: string,
  finished: readonly FinishedSession[],
  now: Date,
): Promise<FinishedSession[]> {
  const passed = finished.filter((f) => f.status === 'PASSED').map((f) => f.session.check_id);
  if (passed.length === 0) return [...finished];
  const calm = await calmPassingStates(tx, accountId, passed);
  const passesCalmly = (f: FinishedSession) => {
    const state = calm.get(f.session.check_id);
    return f.status === 'PASSED' && state !== undefined && noCertificateAlert(f, state, now);
  };
  // One session of a check that moves its state makes every other of the batch count, in their order.
  const moving = new Set(finished.filter((f) => !passesCalmly(f)).map((f) => f.session.check_id));
  return finished.filter((f) => moving.has(f.session.check_id));
}

function noCertificateAlert(finished: FinishedSession, calm: CalmPassing, now: Date): boolean {
  const expiry = soonestExpiry(finished.finals);
  if (!expiry || expiry.daysRemaining > SSL_ALERT_MAX_DAYS) return true;
  return calm.sslAlertedAt !== null && now.getTime() - new Date(calm.sslAlertedAt).getTime() < DAY_MS;
}

async function alertAccount(
  tx: Db,
  accountId: string,
  all: readonly FinishedSession[],
  now: Date,
): Promise<number> {
  const finished = await countedSessions(tx, accountId, all, now);
  if (finished.length === 0) return 0;
  const checks = await alertingChecks(
    tx,
    accountId,
    finished.map((f) => f.session.check_id),
    now,
  );
  const moving = finished.flatMap((one) => {
    const check = checks.get(one.session.check_id);
    const outcome = check && sessionOutcome(one, one.finals, check.runParallel, check.settings);
    return check && outcome ? [{ ...one, check, outcome }] : [];
  });
  if (moving.length === 0) return 0;
  const states = await lockAlertStates(
    tx,
    accountId,
    moving.map((m) => m.session.check_id),
    now,
  );
  const changed = new Set<string>();
  let written = 0;
  for (const { session, finals, check, outcome } of moving) {
    const notifications: NewNotification[] = [];
    const stored = states.get(session.check_id) as StoredAlertState;
    const step = afterSession(stored.state, outcome, session.started_at, stepInput(check, now));
    const telling = tellingResult(finals);
    const told = (type: AlertType) => alertVariables(type, check.facts, session, telling, now);
    if (step.alert) {
      const episode = step.next.episodeId ?? stored.state.episodeId ?? randomUUID();
      notifications.push(
        ...(await notificationsFor(tx, check, step.alert, told(step.alert), session.id, episode)),
      );
      await followIncident(tx, check, step.alert, now);
    }
    const next = { ...step.next };
    const certificate = await certificateAlert(tx, check, session, finals, next.sslAlertedAt, now);
    if (certificate) {
      notifications.push(...certificate);
      next.sslAlertedAt = now;
    }
    const lastVariables = outcome === 'PASSED' ? null : told(step.alert ?? 'ALERT_FAILURE');
    const moved = { state: next, lastVariables };
    if (!sameAlertState(moved, stored)) changed.add(session.check_id);
    states.set(session.check_id, moved);
    // In the outbox before the next session is counted: a recovery later in the batch goes to the channels this
    // session's alert told.
    await enqueueNotifications(tx, notifications, now);
    written += notifications.length;
  }
  // A state the sessions left as it was is not written again (a passing check that passed once more).
  for (const checkId of [...changed].sort()) {
    await saveAlertState(tx, accountId, checkId, states.get(checkId) as StoredAlertState, now);
  }
  return written;
}

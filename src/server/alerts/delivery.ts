import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { secretMasker } from '../../checks/index.js';
import type { AlertingConfig } from '../config.js';
import type { Clock } from '../queue/clock.js';
import { checkSessionLink } from '../sessions/read.js';
import type { Db } from '../store/db.js';
import type { StoredResource } from '../store/resources.js';
import { listVariables } from '../variables/repository.js';
import type { AlertChannelDocument } from './channel-schema.js';
import { channelSecretValues } from './channel-secrets.js';
import {
  CHANNEL_SENDERS,
  type ChannelTarget,
  type DeliveryOutcome,
  type OutgoingAlert,
} from './channels/index.js';
import { alertChannelStore } from './channels.js';
import { type AttemptRecord, claimDueNotifications, type NotificationRow, recordAttempt } from './outbox.js';

/** Notifications one replica sends at once. */
const BATCH = 20;
/** How long a claimed notification is this replica's: longer than a send can take (15 s at most). */
const LEASE_MS = 30_000;
/** The longest wait between two attempts. */
const MAX_BACKOFF_MS = 10 * 60_000;

export interface DeliverySettings {
  publicUrl: string;
  alerting: AlertingConfig;
}

/** A notification as it ended (or was tried), for whoever watches deliveries (`vantage dev` prints them). */
export interface DeliveryEvent {
  notificationId: string;
  alertType: string;
  channelType: string;
  channelId: number;
  checkName: string;
  title: string;
  outcome: DeliveryOutcome['outcome'];
  detail: string;
}

/**
 * Sends the outbox (docs/alerting.md, Delivery): due notifications are claimed with FOR UPDATE SKIP LOCKED, sent
 * outside any transaction, and each attempt recorded. Network errors, 5xx, 408 and 429 are tried again with
 * back-off for 24 hours; other refusals end the notification as FAILED. Emits `delivery` per attempt.
 */
export class AlertDelivery extends EventEmitter<{ delivery: [DeliveryEvent] }> {
  constructor(
    private readonly db: Db,
    private readonly settings: DeliverySettings,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {
    super();
  }

  /** Sends what is due now; returns how many notifications were tried. */
  async deliverDue(): Promise<number> {
    const now = this.clock();
    const claimed = await claimDueNotifications(this.db, now, new Date(now.getTime() + LEASE_MS), BATCH);
    // What one channel hears of one check comes in the order it was written (a failure before its recovery).
    const streams = new Map<string, NotificationRow[]>();
    for (const row of [...claimed].sort((a, b) => Number(a.seq) - Number(b.seq))) {
      const key = `${row.channel_id}\n${row.check_id}`;
      streams.set(key, [...(streams.get(key) ?? []), row]);
    }
    await Promise.all(
      [...streams.values()].map(async (rows) => {
        for (const row of rows) await this.deliver(row);
      }),
    );
    return claimed.length;
  }

  private async deliver(row: NotificationRow): Promise<void> {
    const started = Date.now();
    const channel = await alertChannelStore(this.db).get(row.account_id, String(row.channel_id));
    const result = channel
      ? await sendToChannel(this.db, this.settings.alerting, row.account_id, targetOf(channel), (variables) =>
          this.outgoing(row, variables),
        )
      : { outcome: 'FAILED' as const, responseStatus: null, detail: 'the alert channel was deleted' };
    const now = this.clock();
    const outcome = result.outcome === 'RETRY' && now >= row.give_up_at ? 'FAILED' : result.outcome;
    const detail =
      outcome !== result.outcome ? `${result.detail} (gave up: tried for 24 hours)` : result.detail;
    const attempt: AttemptRecord = {
      at: now.toISOString(),
      outcome: result.outcome,
      responseStatus: result.responseStatus,
      detail,
      durationMs: Date.now() - started,
    };
    const retryAt = outcome === 'RETRY' ? new Date(now.getTime() + this.backoffMs(row.attempts)) : null;
    await recordAttempt(this.db, row.id, attempt, outcome === 'RETRY' ? 'PENDING' : outcome, retryAt, now);
    const facts = {
      notificationId: row.id,
      channelId: Number(row.channel_id),
      channelType: row.channel_type,
      alertType: row.alert_type,
      attempt: row.attempts,
      outcome,
      responseStatus: result.responseStatus,
    };
    if (outcome === 'SENT') this.log.info(facts, 'alert notification sent');
    else
      this.log.warn(
        { ...facts, detail },
        `alert notification ${outcome === 'RETRY' ? 'will be retried' : 'failed'}`,
      );
    this.emit('delivery', {
      notificationId: row.id,
      alertType: row.alert_type,
      channelType: row.channel_type,
      channelId: Number(row.channel_id),
      checkName: row.variables.CHECK_NAME,
      title: row.variables.ALERT_TITLE,
      outcome,
      detail,
    });
  }

  private outgoing(row: NotificationRow, accountVariables: Record<string, string>): OutgoingAlert {
    return {
      notificationId: row.id,
      alertType: row.alert_type,
      episodeId: row.episode_id,
      variables: {
        ...row.variables,
        RESULT_LINK: row.session_id ? checkSessionLink(this.settings.publicUrl, row.session_id) : null,
      },
      accountVariables,
    };
  }

  /** The wait after attempt `n` (1 is the first): doubling from the base, at most ten minutes. */
  private backoffMs(n: number): number {
    return Math.min(MAX_BACKOFF_MS, this.settings.alerting.retryBaseMs * 2 ** Math.max(0, n - 1));
  }
}

export function targetOf(channel: StoredResource<AlertChannelDocument>): ChannelTarget {
  return { id: Number(channel.id), type: channel.document.type, config: channel.document.config };
}

/**
 * Sends one alert through a channel with the account's variables at hand; what the receiver answered comes back
 * with the channel's credentials and the account's secret variables masked. A sender that throws is a bug, told as
 * a FAILED attempt, never a crash.
 */
export async function sendToChannel(
  db: Db,
  settings: AlertingConfig,
  accountId: string,
  channel: ChannelTarget,
  alertOf: (accountVariables: Record<string, string>) => OutgoingAlert,
): Promise<DeliveryOutcome> {
  const variables = await listVariables(db, accountId);
  const mask = secretMasker([
    ...channelSecretValues(channel.type, channel.config),
    ...variables.filter((v) => v.secret || v.locked).map((v) => v.value),
  ]);
  let result: DeliveryOutcome;
  try {
    const alert = alertOf(Object.fromEntries(variables.map((v) => [v.key, v.value])));
    result = await CHANNEL_SENDERS[channel.type](alert, channel, settings);
  } catch (error) {
    result = {
      outcome: 'FAILED',
      responseStatus: null,
      detail: `could not send: ${(error as Error).message}`,
    };
  }
  return { ...result, detail: mask(result.detail) };
}

import type { StoredRunnableCheck } from '../sessions/checks.js';
import type { Db } from '../store/db.js';
import type { StoredResource } from '../store/resources.js';
import type { AlertChannelDocument } from './channel-schema.js';
import { alertChannelStore } from './channels.js';
import type { AlertSettings } from './settings.js';
import type { AlertType } from './state-machine.js';
import type { ChannelSubscription } from './subscriptions.js';

/** Whether a channel sends this type of alert (docs/alerting.md: sendFailure, sendRecovery, sendDegraded, sslExpiry). */
export function channelSends(
  channel: AlertChannelDocument,
  type: AlertType,
  settings: AlertSettings,
  sslDaysRemaining: number | null,
): boolean {
  switch (type) {
    case 'ALERT_FAILURE':
    case 'ALERT_FAILURE_REMAIN':
      return channel.sendFailure;
    case 'ALERT_RECOVERY':
    case 'ALERT_DEGRADED_RECOVERY':
      return channel.sendRecovery;
    case 'ALERT_DEGRADED':
    case 'ALERT_FAILURE_DEGRADED':
      return channel.sendDegraded;
    case 'ALERT_SSL': {
      if (sslDaysRemaining === null) return false;
      const byChannel = channel.sslExpiry && sslDaysRemaining <= channel.sslExpiryThreshold;
      const byCheck =
        settings.sslCertificates.enabled && sslDaysRemaining <= settings.sslCertificates.alertThreshold;
      return byChannel || byCheck;
    }
  }
}

/** The most days before expiry at which any of these channels, or the check's settings, alert. */
export function sslAlertThreshold(
  channels: readonly StoredResource<AlertChannelDocument>[],
  settings: AlertSettings,
): number {
  let threshold = settings.sslCertificates.enabled ? settings.sslCertificates.alertThreshold : 0;
  for (const { document } of channels)
    if (document.sslExpiry) threshold = Math.max(threshold, document.sslExpiryThreshold);
  return threshold;
}

const subscriptionsOf = (definition: unknown): ChannelSubscription[] => {
  const subs = (definition as { alertChannelSubscriptions?: unknown } | null)?.alertChannelSubscriptions;
  return Array.isArray(subs) ? (subs as ChannelSubscription[]) : [];
};

/** The channels a check's alerts go to: its own activated subscriptions and its group's. */
export async function subscribedChannels(
  db: Db,
  check: StoredRunnableCheck,
): Promise<StoredResource<AlertChannelDocument>[]> {
  const ids = new Set<number>();
  for (const sub of [...subscriptionsOf(check.definition), ...subscriptionsOf(check.group)]) {
    if (sub.activated !== false) ids.add(Number(sub.alertChannelId));
  }
  if (ids.size === 0) return [];
  return (await alertChannelStore(db).list(check.accountId)).filter((c) => ids.has(Number(c.id)));
}

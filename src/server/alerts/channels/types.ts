import type { AlertingConfig } from '../../config.js';
import type { AlertChannelType } from '../channel-schema.js';
import type { AlertType } from '../state-machine.js';
import type { AlertVariables } from '../variables.js';

/** One notification as a channel sends it. */
export interface OutgoingAlert {
  /** The notification's id: the idempotency key receivers get (`x-vantage-notification-id`). */
  notificationId: string;
  alertType: AlertType;
  /** One failure or degradation from start to recovery: PagerDuty's dedup_key, Opsgenie's alias. */
  episodeId: string;
  variables: AlertVariables;
  /** The account's environment variables, for `{{VAR}}` in templates; never stored with the notification. */
  accountVariables: Record<string, string>;
}

export interface ChannelTarget {
  id: number;
  type: AlertChannelType;
  config: Record<string, unknown>;
}

/**
 * What a send came to: SENT; RETRY (network error, 5xx, 408, 429: tried again with back-off); FAILED (any other
 * refusal: trying again would not help). `detail` says what the receiver answered, secrets masked.
 */
export interface DeliveryOutcome {
  outcome: 'SENT' | 'RETRY' | 'FAILED';
  responseStatus: number | null;
  detail: string;
}

export type ChannelSender = (
  alert: OutgoingAlert,
  channel: ChannelTarget,
  settings: AlertingConfig,
) => Promise<DeliveryOutcome>;

export const failed = (detail: string): DeliveryOutcome => ({
  outcome: 'FAILED',
  responseStatus: null,
  detail,
});

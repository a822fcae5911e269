import type { AlertChannelType } from '../channel-schema.js';
import { sendEmail } from './email.js';
import { sendOpsgenie } from './opsgenie.js';
import { sendPagerDuty } from './pagerduty.js';
import { sendSlack, sendSlackApp } from './slack.js';
import { sendCall, sendSms } from './twilio.js';
import type { ChannelSender } from './types.js';
import { sendWebhook } from './webhook.js';

export { closeMailTransports } from '../../mail/transport.js';
export type { ChannelTarget, DeliveryOutcome, OutgoingAlert } from './types.js';

/** How each channel type delivers (docs/alerting.md, Channels). */
export const CHANNEL_SENDERS: Record<AlertChannelType, ChannelSender> = {
  WEBHOOK: sendWebhook,
  SLACK: sendSlack,
  SLACK_APP: sendSlackApp,
  EMAIL: sendEmail,
  PAGERDUTY: sendPagerDuty,
  OPSGENIE: sendOpsgenie,
  SMS: sendSms,
  CALL: sendCall,
};

import { z } from 'zod';
import type { StoredResource } from '../store/resources.js';
import type { AlertChannelDocument } from './channel-schema.js';
import { maskedChannelConfig } from './channel-secrets.js';
import type { ChannelSubscription } from './subscriptions.js';

const keyValueList = z.array(z.object({ key: z.string(), value: z.string(), locked: z.boolean() }));

/** The spec's "Alert channels in a check response": the active channels of a check, by type. */
export const checkAlertChannelsSchema = z.object({
  email: z.array(z.object({ address: z.string() })),
  webhook: z.array(
    z.object({
      url: z.string(),
      name: z.string(),
      method: z.string(),
      headers: keyValueList,
      queryParameters: keyValueList,
    }),
  ),
  slack: z.array(z.object({ url: z.string() })),
  sms: z.array(z.object({ number: z.string(), name: z.string() })),
});
export type CheckAlertChannels = z.infer<typeof checkAlertChannelsSchema>;

type Config = Record<string, unknown>;
const text = (config: Config, key: string): string => String(config[key] ?? '');
const list = (config: Config, key: string) =>
  Array.isArray(config[key]) ? (config[key] as CheckAlertChannels['webhook'][number]['headers']) : [];

export function checkAlertChannels(
  subscriptions: readonly ChannelSubscription[] | undefined,
  channels: ReadonlyMap<number, StoredResource<AlertChannelDocument>>,
): CheckAlertChannels {
  const view: CheckAlertChannels = { email: [], webhook: [], slack: [], sms: [] };
  for (const sub of subscriptions ?? []) {
    const channel = channels.get(sub.alertChannelId);
    if (!sub.activated || !channel) continue;
    const type = channel.document.type;
    const config = maskedChannelConfig(type, channel.document.config);
    if (type === 'EMAIL') view.email.push({ address: text(config, 'address') });
    else if (type === 'SLACK') view.slack.push({ url: text(config, 'url') });
    else if (type === 'SMS') view.sms.push({ number: text(config, 'number'), name: text(config, 'name') });
    else if (type === 'WEBHOOK') {
      view.webhook.push({
        url: text(config, 'url'),
        name: text(config, 'name'),
        method: text(config, 'method'),
        headers: list(config, 'headers'),
        queryParameters: list(config, 'queryParameters'),
      });
    }
  }
  return view;
}

import { MASK } from '../../checks/index.js';
import { restoreMaskedValues } from '../common/merge.js';
import type { AlertChannelType } from './channel-schema.js';

type Config = Record<string, unknown>;
type KeyValueItem = { key: string; value: string; locked?: boolean };

/** Top-level config fields that hold a credential, by channel type. */
const SECRET_FIELDS: Partial<Record<AlertChannelType, readonly string[]>> = {
  WEBHOOK: ['webhookSecret'],
  PAGERDUTY: ['routingKey', 'serviceKey'],
  OPSGENIE: ['apiKey'],
  SLACK_APP: ['token'],
};

/** Webhook lists whose values are secret: every header (they carry tokens), and query parameters marked locked. */
const SECRET_LISTS: readonly { field: string; secret: (item: KeyValueItem) => boolean }[] = [
  { field: 'headers', secret: () => true },
  { field: 'queryParameters', secret: (item) => item.locked === true },
];

const items = (config: Config, field: string): KeyValueItem[] =>
  Array.isArray(config[field]) ? (config[field] as KeyValueItem[]) : [];

/** The credentials in a channel's config: masked in answers, and in whatever a receiver answers back. */
export function channelSecretValues(type: AlertChannelType, config: Config): string[] {
  const values = (SECRET_FIELDS[type] ?? [])
    .map((f) => config[f])
    .filter((v): v is string => typeof v === 'string');
  if (type === 'WEBHOOK') {
    for (const { field, secret } of SECRET_LISTS) {
      for (const item of items(config, field)) if (secret(item) && item.value) values.push(item.value);
    }
  }
  return values.filter((v) => v.length > 0);
}

/** A channel's config as the API shows it: every credential replaced by the mask. */
export function maskedChannelConfig(type: AlertChannelType, config: Config): Config {
  const out: Config = { ...config };
  for (const field of SECRET_FIELDS[type] ?? []) if (typeof out[field] === 'string') out[field] = MASK;
  if (type === 'WEBHOOK') {
    for (const { field, secret } of SECRET_LISTS) {
      if (!Array.isArray(out[field])) continue;
      out[field] = items(config, field).map((item) => (secret(item) ? { ...item, value: MASK } : item));
    }
  }
  return out;
}

/**
 * A config sent back as it was fetched keeps its credentials: a field (or a webhook header or query parameter, by
 * key) given as the mask takes the stored value, so an update never stores the mask itself.
 */
export function withStoredSecrets(type: AlertChannelType, given: Config, stored: Config): Config {
  const out: Config = { ...given };
  for (const field of SECRET_FIELDS[type] ?? []) if (out[field] === MASK) out[field] = stored[field];
  if (type === 'WEBHOOK') {
    for (const { field } of SECRET_LISTS) out[field] = restoreMaskedValues(out[field], stored[field]);
  }
  return out;
}

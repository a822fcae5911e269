import type { AlertingConfig } from '../../config.js';
import { sendHttp } from './http.js';
import { alertText } from './message.js';
import type { ChannelSender } from './types.js';

function apiBase(settings: AlertingConfig, region: unknown): string {
  if (settings.opsgenieApiUrl) return settings.opsgenieApiUrl;
  return region === 'EU' ? 'https://api.eu.opsgenie.com' : 'https://api.opsgenie.com';
}

/** OPSGENIE: an alert created with the episode id as alias, and closed by that alias on recovery. */
export const sendOpsgenie: ChannelSender = async (alert, channel, settings) => {
  const config = channel.config as { apiKey: string; region?: string; priority?: string };
  const vars = alert.variables;
  const base = `${apiBase(settings, config.region)}/v2/alerts`;
  const headers = {
    'content-type': 'application/json',
    authorization: `GenieKey ${config.apiKey}`,
    'x-vantage-notification-id': alert.notificationId,
  };
  if (alert.alertType === 'ALERT_RECOVERY' || alert.alertType === 'ALERT_DEGRADED_RECOVERY') {
    return sendHttp({
      method: 'POST',
      url: `${base}/${encodeURIComponent(alert.episodeId)}/close?identifierType=alias`,
      headers,
      body: JSON.stringify({ source: 'Vantage', note: vars.ALERT_TITLE }),
    });
  }
  return sendHttp({
    method: 'POST',
    url: base,
    headers,
    body: JSON.stringify({
      message: vars.ALERT_TITLE.slice(0, 130),
      alias: alert.episodeId,
      description: alertText(vars).slice(0, 15_000),
      priority:
        alert.alertType === 'ALERT_FAILURE' || alert.alertType === 'ALERT_FAILURE_REMAIN'
          ? config.priority
          : 'P5',
      source: 'Vantage',
      tags: vars.TAGS,
      entity: vars.CHECK_NAME,
      details: { checkId: vars.CHECK_ID, alertType: vars.ALERT_TYPE, location: vars.RUN_LOCATION ?? '' },
    }),
  });
};

import type { AlertType } from '../state-machine.js';
import { sendHttp } from './http.js';
import { alertText } from './message.js';
import type { ChannelSender } from './types.js';

const SEVERITY: Record<AlertType, 'critical' | 'error' | 'warning' | 'info'> = {
  ALERT_FAILURE: 'critical',
  ALERT_FAILURE_REMAIN: 'critical',
  ALERT_FAILURE_DEGRADED: 'warning',
  ALERT_DEGRADED: 'warning',
  ALERT_SSL: 'warning',
  ALERT_RECOVERY: 'info',
  ALERT_DEGRADED_RECOVERY: 'info',
};

const RESOLVES: readonly AlertType[] = ['ALERT_RECOVERY', 'ALERT_DEGRADED_RECOVERY'];

/**
 * PAGERDUTY: an Events API v2 event; the episode id is the dedup_key, so the failure's `trigger` and the
 * recovery's `resolve` are one PagerDuty incident.
 */
export const sendPagerDuty: ChannelSender = async (alert, channel, settings) => {
  const config = channel.config as { routingKey?: string; serviceKey?: string };
  const vars = alert.variables;
  const resolve = RESOLVES.includes(alert.alertType);
  const event = {
    routing_key: config.routingKey ?? config.serviceKey,
    event_action: resolve ? 'resolve' : 'trigger',
    dedup_key: alert.episodeId,
    ...(resolve
      ? {}
      : {
          payload: {
            summary: vars.ALERT_TITLE.slice(0, 1024),
            source: vars.RUN_LOCATION ?? 'vantage',
            severity: SEVERITY[alert.alertType],
            timestamp: vars.STARTED_AT,
            component: vars.CHECK_NAME,
            group: vars.GROUP_NAME ?? undefined,
            class: vars.CHECK_TYPE,
            custom_details: { ...vars, text: alertText(vars) },
          },
          links: vars.RESULT_LINK ? [{ href: vars.RESULT_LINK, text: 'Check session' }] : [],
        }),
  };
  return sendHttp({
    method: 'POST',
    url: settings.pagerDutyEventsUrl,
    headers: { 'content-type': 'application/json', 'x-vantage-notification-id': alert.notificationId },
    body: JSON.stringify(event),
  });
};

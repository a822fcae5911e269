import { sendHttp } from './http.js';
import { alertFacts } from './message.js';
import { type ChannelSender, type DeliveryOutcome, failed, type OutgoingAlert } from './types.js';

/** Slack's message JSON: the title as text (notifications), and blocks with the facts. */
function slackMessage(alert: OutgoingAlert): { text: string; blocks: unknown[] } {
  const vars = alert.variables;
  const facts = alertFacts(vars).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v.slice(0, 1900)}` }));
  return {
    text: vars.ALERT_TITLE,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: vars.ALERT_TITLE.slice(0, 150) } },
      // Slack takes at most ten fields in a section.
      ...chunks(facts, 10).map((fields) => ({ type: 'section', fields })),
    ],
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const json = (alert: OutgoingAlert) => ({
  'content-type': 'application/json',
  'x-vantage-notification-id': alert.notificationId,
});

/** SLACK: the message to the channel's incoming-webhook url. */
export const sendSlack: ChannelSender = async (alert, channel) =>
  sendHttp({
    method: 'POST',
    url: String(channel.config.url),
    headers: json(alert),
    body: JSON.stringify(slackMessage(alert)),
  });

/** Slack's Web API answers 200 with `ok: false` when it refuses a message. */
function slackApiAnswer(status: number, body: string): DeliveryOutcome | null {
  try {
    const answer = JSON.parse(body) as { ok?: boolean; error?: string };
    if (answer.ok !== false) return null;
    const outcome = answer.error === 'ratelimited' ? 'RETRY' : 'FAILED';
    return {
      outcome,
      responseStatus: status,
      detail: `Slack refused the message: ${answer.error ?? 'unknown error'}`,
    };
  } catch {
    return null;
  }
}

/** SLACK_APP: chat.postMessage with the app's token to its channel, or to the app's incoming-webhook url. */
export const sendSlackApp: ChannelSender = async (alert, channel, settings) => {
  const config = channel.config as { url?: string; channel?: string; channelId?: string; token?: string };
  if (config.url) return sendSlack(alert, channel, settings);
  const target = config.channelId ?? config.channel;
  if (!config.token || !target) return failed('the Slack app channel needs its token and channel (or a url)');
  return sendHttp(
    {
      method: 'POST',
      url: `${settings.slackApiUrl}/chat.postMessage`,
      headers: { ...json(alert), authorization: `Bearer ${config.token}` },
      body: JSON.stringify({ channel: target, ...slackMessage(alert) }),
    },
    slackApiAnswer,
  );
};

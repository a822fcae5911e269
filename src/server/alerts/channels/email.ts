import { sendMail } from '../../mail/transport.js';
import { networkErrorOf } from './http.js';
import { alertHtml, alertText } from './message.js';
import { type ChannelSender, failed } from './types.js';

/**
 * EMAIL: a plain-text and HTML mail through the server's SMTP_URL. The server's 5xx refusals end the notification;
 * 4xx and connection errors are tried again.
 */
export const sendEmail: ChannelSender = async (alert, channel, settings) => {
  if (!settings.smtpUrl) return failed('EMAIL channels need the server setting SMTP_URL');
  const vars = alert.variables;
  try {
    const response = await sendMail(settings.smtpUrl, {
      from: settings.emailFrom,
      to: String(channel.config.address),
      subject: vars.ALERT_TITLE,
      text: alertText(vars),
      html: alertHtml(vars),
      headers: { 'X-Vantage-Notification-Id': alert.notificationId },
    });
    return {
      outcome: 'SENT',
      responseStatus: 250,
      detail: response.slice(0, 300),
    };
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    if (typeof code === 'number') {
      return {
        outcome: code >= 500 ? 'FAILED' : 'RETRY',
        responseStatus: code,
        detail: networkErrorOf(error),
      };
    }
    return { outcome: 'RETRY', responseStatus: null, detail: networkErrorOf(error) };
  }
};

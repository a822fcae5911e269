import nodemailer, { type Transporter } from 'nodemailer';
import { networkErrorOf } from './http.js';
import { alertHtml, alertText } from './message.js';
import { type ChannelSender, failed } from './types.js';

/** One pooled SMTP connection per mail server. */
const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    // Timeouts well inside the delivery lease: a mail server that hangs is tried again, never sent to twice at once.
    transport = nodemailer.createTransport(smtpUrl, {
      pool: true,
      maxConnections: 2,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    } as never);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** Closes the pooled SMTP connections (server shutdown). */
export function closeMailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}

/**
 * EMAIL: a plain-text and HTML mail through the server's SMTP_URL. The server's 5xx refusals end the notification;
 * 4xx and connection errors are tried again.
 */
export const sendEmail: ChannelSender = async (alert, channel, settings) => {
  if (!settings.smtpUrl) return failed('EMAIL channels need the server setting SMTP_URL');
  const vars = alert.variables;
  try {
    const info = await transportFor(settings.smtpUrl).sendMail({
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
      detail: String(info.response ?? '250 accepted').slice(0, 300),
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

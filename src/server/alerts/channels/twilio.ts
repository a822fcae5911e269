import Handlebars from 'handlebars';
import { sendHttp } from './http.js';
import { alertLine } from './message.js';
import { type ChannelSender, failed } from './types.js';

/**
 * SMS and CALL through Twilio's REST API (Messages and Calls), with the account, token and sending number of the
 * server's settings; a call reads the alert out.
 */
function twilioSender(resource: 'Messages' | 'Calls'): ChannelSender {
  return async (alert, channel, settings) => {
    const { apiUrl, accountSid, authToken, fromNumber } = settings.twilio;
    if (!accountSid || !authToken || !fromNumber) {
      return failed(
        'SMS and CALL channels need TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER',
      );
    }
    const text = alertLine(alert.variables);
    const form = new URLSearchParams({
      To: String(channel.config.number).replace(/[ ()-]/g, ''),
      From: fromNumber,
    });
    if (resource === 'Messages') form.set('Body', text);
    else form.set('Twiml', `<Response><Say>${Handlebars.escapeExpression(text)}</Say></Response>`);
    return sendHttp({
      method: 'POST',
      url: `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/${resource}.json`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
        'i-twilio-idempotency-token': alert.notificationId,
        'x-vantage-notification-id': alert.notificationId,
      },
      body: form.toString(),
    });
  };
}

export const sendSms = twilioSender('Messages');
export const sendCall = twilioSender('Calls');

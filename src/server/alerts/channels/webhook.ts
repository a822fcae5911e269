import { createHmac } from 'node:crypto';
import type { KeyValue } from '../../../checks/index.js';
import { renderTemplate, TemplateError } from '../template.js';
import { sendHttp } from './http.js';
import { type ChannelSender, failed } from './types.js';

/** The signature header of a webhook with a secret: `sha256=<hex HMAC-SHA256 of the body>`. */
function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * WEBHOOK: the rendered template (default: a JSON document of every variable) to the channel's url, with its
 * headers and query parameters (which may use `{{VAR}}` too), signed when it has a webhookSecret.
 */
export const sendWebhook: ChannelSender = async (alert, channel) => {
  const config = channel.config as {
    url: string;
    method?: string;
    headers?: KeyValue[];
    queryParameters?: KeyValue[];
    template?: string;
    webhookSecret?: string;
  };
  const context = { ...alert.accountVariables, ...alert.variables };
  const method = (config.method ?? 'POST').toUpperCase();
  let body: string;
  let url: URL;
  const headers: Record<string, string> = {};
  try {
    body = config.template ? renderTemplate(config.template, context) : JSON.stringify(alert.variables);
    url = new URL(renderTemplate(config.url, context));
    for (const q of config.queryParameters ?? []) {
      url.searchParams.append(renderTemplate(q.key, context), renderTemplate(q.value, context));
    }
    for (const h of config.headers ?? []) {
      headers[renderTemplate(h.key, context).toLowerCase()] = renderTemplate(h.value, context);
    }
  } catch (error) {
    if (error instanceof TemplateError || error instanceof TypeError) return failed((error as Error).message);
    throw error;
  }
  const hasBody = method !== 'GET' && method !== 'HEAD';
  headers['content-type'] ??= looksLikeJson(body) ? 'application/json' : 'text/plain; charset=utf-8';
  headers['x-vantage-notification-id'] = alert.notificationId;
  if (config.webhookSecret) headers['x-vantage-signature'] = webhookSignature(config.webhookSecret, body);
  return sendHttp({ method, url: url.toString(), headers, body: hasBody ? body : undefined });
};

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';

/** One pooled SMTP connection per mail server. */
const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    // Timeouts well inside a delivery lease: a mail server that hangs is tried again, never sent to twice at once.
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

/** Sends one mail through the server's SMTP_URL; answers the server's reply. Throws nodemailer's errors. */
export async function sendMail(smtpUrl: string, message: SendMailOptions): Promise<string> {
  const info = await transportFor(smtpUrl).sendMail(message);
  return String(info.response ?? '250 accepted');
}

/** Closes the pooled SMTP connections (server shutdown). */
export function closeMailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}

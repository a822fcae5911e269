/**
 * Local receivers posing as the services alert channels deliver to: an HTTP listener for webhooks, Slack,
 * PagerDuty, Opsgenie and Twilio, and an SMTP server for mail.
 */
import { SMTPServer } from 'smtp-server';
import { type ReceivedRequest, receiveRequest, startHttpServer, type TestServer } from './http-servers.js';

export interface Receiver extends TestServer {
  received: ReceivedRequest[];
  /** The answers to give, in order (status codes); once used up, every request gets 200. */
  answers: number[];
}

/** An HTTP receiver that records every request and answers with the next of `answers` (then 200). */
export async function startReceiver(
  answers: number[] = [],
  options: { port?: number } = {},
): Promise<Receiver> {
  const receiver = { received: [] as ReceivedRequest[], answers: [...answers] };
  const server = await startHttpServer(async (req, res) => {
    const request = await receiveRequest(req);
    receiver.received.push(request);
    res.statusCode = receiver.answers.shift() ?? 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: res.statusCode < 300 }));
  }, options);
  return Object.assign(server, receiver);
}

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/** A local SMTP server that takes any mail (no authentication, no TLS) and keeps it. */
export async function startSmtpReceiver(): Promise<{
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

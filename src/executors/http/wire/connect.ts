import { isIP, connect as netConnect, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import type { TlsDetails } from '../../../checks/index.js';
import type { ClientCertificate } from '../../types.js';
import { type ConnectionSettings, tlsDetailsOf } from '../connection.js';
import type { JobLog } from '../job-log.js';
import type { HopTiming } from '../timings.js';

/** node:tls is loaded when the first HTTPS check connects (it costs a few milliseconds at start). */
let tls: typeof import('node:tls') | undefined;

/** An open socket, and the TLS details of its server once it is secured. */
export interface OpenedSocket {
  socket: Socket;
  tls: () => TlsDetails | null;
  /**
   * Hands the bytes the socket receives to `read`, as they come. A chunk is valid only during the call: a plain
   * connection reads into a buffer shared by every connection of the thread, so what outlives the call is copied.
   */
  onRead(read: (chunk: Buffer) => void): void;
}

/**
 * The one buffer plain connections read into (`onread`), 64 KiB as Node.js's own reads. Without it each read
 * allocates a buffer of its own and goes through the socket's readable stream ('data' events): about 5 µs of CPU
 * per connection on this machine (docs/performance.md), for bytes the parser turns into strings at once.
 * Reads are handled one at a time on the thread's event loop, so one buffer serves every connection.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Opens the connection for `url`, marking on `hop` when it was asked for, looked up, connected and secured. TLS
 * offers HTTP/1.1 only, with the server's name for SNI (not for an address), no session reuse (each run pays its
 * own handshake, as a first visitor would), and the check's client certificate if it has one for this host.
 */
export function openSocket(
  url: URL,
  settings: ConnectionSettings,
  hop: HopTiming,
  log: JobLog,
): OpenedSocket {
  hop.socket = performance.now();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  // No noDelay: a request goes out in one write (its head and body corked together), so Nagle never holds it back,
  // and the option would cost a system call per connection.
  const common = { host, port, family: settings.family, autoSelectFamily: false };
  let details: TlsDetails | null = null;
  let socket: Socket;
  let onRead: OpenedSocket['onRead'];
  if (url.protocol === 'https:') {
    tls ??= process.getBuiltinModule('node:tls');
    const options: ConnectionOptions = {
      ...common,
      rejectUnauthorized: !settings.skipSSL,
      ALPNProtocols: ['http/1.1'],
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...clientCertificateOptions(settings.clientCertificate),
    };
    const secure: TLSSocket = tls.connect(options);
    secure.once('secureConnect', () => {
      hop.secureConnect = performance.now();
      details = tlsDetailsOf(secure);
      log.debug(`TLS ${details.protocol} ${details.cipher}, certificate of ${details.subject}`);
    });
    socket = secure;
    onRead = (read) => socket.on('data', read);
  } else {
    let reader: (chunk: Buffer) => void = () => {};
    const callback = (bytes: number) => {
      reader(READ_BUFFER.subarray(0, bytes));
      return true; // reading stops only when the connection pauses the socket itself
    };
    socket = netConnect({ ...common, onread: { buffer: READ_BUFFER, callback } });
    onRead = (read) => {
      reader = read;
    };
  }
  // The address connected to, as looked up (not read back from the socket: a system call per connection).
  let address = host;
  socket
    .once('lookup', (error: Error | null, found: string) => {
      hop.lookup = performance.now();
      if (error) return;
      address = found;
      log.debug(`resolved ${host} to ${found}`);
    })
    .once('connect', () => {
      hop.connect = performance.now();
      log.debug(`connected to ${address}:${port}`);
    });
  return { socket, tls: () => details, onRead };
}

function clientCertificateOptions(cert: ClientCertificate | undefined): ConnectionOptions {
  if (!cert) return {};
  return {
    cert: cert.cert,
    key: cert.key,
    ...(cert.ca ? { ca: cert.ca } : {}),
    ...(cert.passphrase ? { passphrase: cert.passphrase } : {}),
  };
}

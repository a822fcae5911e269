import { isIP, connect as netConnect } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import type { TlsDetails } from '../../../checks/index.js';
import type { ClientCertificate } from '../../types.js';
import { type ConnectionSettings, tlsDetailsOf } from '../connection.js';
import type { JobLog } from '../job-log.js';
import type { HopTiming } from '../timings.js';
import { TcpHandleSocket, tcpHandleAvailable, type WireSocket } from './tcp-handle.js';

/** node:tls is loaded when the first HTTPS check connects (it costs a few milliseconds at start). */
let tls: typeof import('node:tls') | undefined;

/** An open socket, and the TLS details of its server once it is secured. */
export interface OpenedSocket {
  socket: WireSocket;
  tls: () => TlsDetails | null;
}

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
  let socket: WireSocket;
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
  } else if (tcpHandleAvailable()) {
    socket = new TcpHandleSocket(host, port, settings.family);
  } else {
    socket = netConnect(common);
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
  return { socket, tls: () => details };
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

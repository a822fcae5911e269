import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { buildConnector } from 'undici';
import type { ClientCertificate } from '../types.js';
import type { JobLog } from './job-log.js';
import { SOCKET_TIMEOUT_MS } from './limits.js';
import { markResponsesOn } from './response-marks.js';
import type { HopTiming } from './timings.js';
import { tlsDetailsOf } from './tls-details.js';

export interface ConnectionSettings {
  family: 4 | 6;
  skipSSL: boolean;
  clientCertificate: ClientCertificate | undefined;
}

/** buildConnector's connector returns the socket it opens, though its type says void. */
type SocketConnector = (
  options: buildConnector.Options,
  callback: buildConnector.Callback,
) => Socket | TLSSocket | undefined;

function buildOptions(settings: ConnectionSettings): buildConnector.BuildOptions {
  const cert = settings.clientCertificate;
  return {
    family: settings.family,
    autoSelectFamily: false,
    rejectUnauthorized: !settings.skipSSL,
    timeout: SOCKET_TIMEOUT_MS,
    maxCachedSessions: 0,
    ...(cert && {
      cert: cert.cert,
      key: cert.key,
      ...(cert.ca ? { ca: cert.ca } : {}),
      ...(cert.passphrase ? { passphrase: cert.passphrase } : {}),
    }),
  } as buildConnector.BuildOptions;
}

/**
 * undici's connector, timed: the hop being sent when a connection is opened gets its socket, lookup,
 * connect and secureConnect moments, and the TLS details of the server.
 */
export function timedConnector(
  settings: ConnectionSettings,
  currentHop: () => HopTiming,
  log: JobLog,
): buildConnector.connector {
  const connect = buildConnector(buildOptions(settings)) as unknown as SocketConnector;
  return (options, callback) => {
    const hop = currentHop();
    hop.socket = performance.now();
    const socket = connect(options, callback);
    if (!socket) return;
    markResponsesOn(socket, currentHop);
    // Prepended: undici's own listeners set up the connection and write the request first otherwise.
    socket
      .prependOnceListener('lookup', (error: Error | null, address: string) => {
        hop.lookup = performance.now();
        if (!error) log.debug(`resolved ${options.hostname} to ${address}`);
      })
      .prependOnceListener('connect', () => {
        hop.connect = performance.now();
        log.debug(`connected to ${socket.remoteAddress}:${socket.remotePort}`);
      })
      .prependOnceListener('secureConnect', () => {
        hop.secureConnect = performance.now();
        hop.tls = tlsDetailsOf(socket as TLSSocket);
        log.debug(`TLS ${hop.tls.protocol} ${hop.tls.cipher}, certificate of ${hop.tls.subject}`);
      })
      .once('error', (error: Error) => {
        hop.connectionError ??= error;
      });
  };
}

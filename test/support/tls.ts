/**
 * Certificates made for a test with the `openssl` CLI (EC P-256 keys: fast): a self-signed one, or a
 * CA that issues server and client certificates for mTLS. PEM text, ready for node:tls options.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyAndCertificate {
  key: string;
  cert: string;
}

export interface CertificateOptions {
  commonName?: string;
  /** Days from now until it expires. */
  days?: number;
  /** subjectAltName entries such as `DNS:localhost`, `IP:127.0.0.1`. */
  altNames?: string[];
}

const DEFAULT_ALT_NAMES = ['DNS:localhost', 'IP:127.0.0.1', 'IP:::1'];

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-tls-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A certificate signed by its own key, as a server's that no CA vouches for. */
export function selfSignedCertificate(options: CertificateOptions = {}): KeyAndCertificate {
  const { commonName = 'localhost', days = 30, altNames = DEFAULT_ALT_NAMES } = options;
  return inTempDir((dir) => {
    openssl(dir, [
      'req',
      '-x509',
      ...NEW_KEY,
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      String(days),
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      `subjectAltName=${altNames.join(',')}`,
    ]);
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  });
}

/** A certificate authority to issue server and client certificates from. */
export function certificateAuthority(commonName = 'Vantage Test CA'): KeyAndCertificate {
  return inTempDir((dir) => {
    openssl(dir, [
      'req',
      '-x509',
      ...NEW_KEY,
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '30',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  });
}

/** A certificate issued by `ca`, for a server (serverAuth) or a client (clientAuth). */
export function issueCertificate(
  ca: KeyAndCertificate,
  use: 'server' | 'client',
  options: CertificateOptions = {},
): KeyAndCertificate {
  const { commonName = use === 'server' ? 'localhost' : 'vantage-client', days = 30 } = options;
  const altNames = options.altNames ?? (use === 'server' ? DEFAULT_ALT_NAMES : []);
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'ca.key'), ca.key);
    writeFileSync(join(dir, 'ca.pem'), ca.cert);
    const extensions = [
      'basicConstraints=CA:FALSE',
      `extendedKeyUsage=${use === 'server' ? 'serverAuth' : 'clientAuth'}`,
      ...(altNames.length > 0 ? [`subjectAltName=${altNames.join(',')}`] : []),
    ];
    writeFileSync(join(dir, 'ext.cnf'), `${extensions.join('\n')}\n`);
    openssl(dir, [
      'req',
      '-new',
      ...NEW_KEY,
      '-keyout',
      'key.pem',
      '-out',
      'req.csr',
      '-subj',
      `/CN=${commonName}`,
    ]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'req.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'cert.pem',
      '-days',
      String(days),
      '-extfile',
      'ext.cnf',
    ]);
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCertificateFor } from '../../../src/executors/http/connection.js';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import type { ClientCertificate } from '../../../src/executors/types.js';
import { startHttpServer, startHttpsServer, type TestServer } from '../../support/http-servers.js';
import {
  certificateAuthority,
  issueCertificate,
  type KeyAndCertificate,
  selfSignedCertificate,
} from '../../support/tls.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

const DAY_MS = 86_400_000;

let selfSigned: TestServer;
let mutual: TestServer;
let ca: KeyAndCertificate;
let client: KeyAndCertificate;

beforeAll(async () => {
  const own = selfSignedCertificate({ commonName: 'localhost', days: 30 });
  selfSigned = await startHttpsServer((_req, res) => res.end('secure'), own);
  ca = certificateAuthority('Vantage Test CA');
  const serverCert = issueCertificate(ca, 'server', { commonName: 'localhost', days: 90 });
  client = issueCertificate(ca, 'client', { commonName: 'vantage-agent' });
  mutual = await startHttpsServer(
    (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.end(`hello ${peer.subject?.CN}`);
    },
    { ...serverCert, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
  );
});
afterAll(async () => {
  await selfSigned.close();
  await mutual.close();
});

describe('server certificates', () => {
  it('fails on a self-signed certificate with the TLS error', async () => {
    const attempt = await executeUrl(urlCheck({ url: selfSigned.url('/') }), runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/DEPTH_ZERO_SELF_SIGNED_CERT/);
    expect(attempt.error).toMatch(/self[- ]signed certificate/);
    expect(apiResult(attempt).response).toBeNull();
  });

  it('accepts it with skipSSL and reports the TLS details', async () => {
    const attempt = await executeApi(apiCheck({ url: selfSigned.url('/'), skipSSL: true }), runContext());
    expect(attempt.hasErrors).toBe(false);
    const response = apiResult(attempt).response;
    expect(response?.body).toBe('secure');
    const tls = response?.tls;
    expect(tls).toMatchObject({ protocol: 'TLSv1.3', subject: 'localhost', issuer: 'localhost' });
    expect(tls?.cipher).toEqual(expect.any(String));
    const validTo = Date.parse(tls?.validTo ?? '');
    const validFrom = Date.parse(tls?.validFrom ?? '');
    expect(tls?.validTo).toBe(new Date(validTo).toISOString());
    expect(validTo - validFrom).toBe(30 * DAY_MS);
    expect(tls?.daysRemaining).toBe(Math.floor((validTo - Date.now()) / DAY_MS));
    expect(tls?.daysRemaining).toBeGreaterThanOrEqual(29);
    expect(tls?.daysRemaining).toBeLessThanOrEqual(30);
  });

  it('has no TLS details over plain http', async () => {
    const plain = await startHttpServer((_req, res) => res.end('plain'));
    try {
      const attempt = await executeApi(apiCheck({ url: plain.url('/') }), runContext());
      expect(apiResult(attempt).response?.tls).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

describe('client certificates (mTLS)', () => {
  const forLocalhost = (): ClientCertificate => ({
    host: 'localhost',
    cert: client.cert,
    key: client.key,
    ca: ca.cert,
  });

  it('is accepted with the certificate for its host', async () => {
    const url = mutual.url('/').replace('127.0.0.1', 'localhost');
    const context = runContext({
      clientCertificates: [{ host: 'other.test', cert: 'x', key: 'y' }, forLocalhost()],
    });
    const attempt = await executeApi(apiCheck({ url }), context);
    expect(attempt.error).toBeNull();
    const response = apiResult(attempt).response;
    expect(response?.body).toBe('hello vantage-agent');
    expect(response?.tls).toMatchObject({ subject: 'localhost', issuer: 'Vantage Test CA' });
  });

  it('is rejected without a certificate', async () => {
    const url = mutual.url('/').replace('127.0.0.1', 'localhost');
    const context = runContext({ clientCertificates: [{ ...forLocalhost(), host: 'elsewhere.test' }] });
    const attempt = await executeApi(apiCheck({ url, skipSSL: true }), context);
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/certificate required/);
  });

  it('is chosen by exact host first, then by a one-label wildcard', () => {
    const make = (host: string) => ({ host, cert: host, key: host });
    const list = [make('*.example.test'), make('api.example.test'), make('[::1]')];
    expect(clientCertificateFor('api.example.test', list)?.cert).toBe('api.example.test');
    expect(clientCertificateFor('WWW.example.test', list)?.cert).toBe('*.example.test');
    expect(clientCertificateFor('a.b.example.test', list)).toBeUndefined();
    expect(clientCertificateFor('example.test', list)).toBeUndefined();
    expect(clientCertificateFor('[::1]', [make('::1')])?.cert).toBe('::1');
  });
});

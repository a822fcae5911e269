import { describe, expect, it } from 'vitest';
import { buildErrorReport, createErrorReporter } from '../../src/observability/error-reporter.js';
import { SecretValues } from '../../src/observability/secret-values.js';
import type { ErrorReport } from '../../src/protocol/index.js';

const KEY = 'pl_acme.berlin-1.Sup3rSecretKeyValue_42xyz';
const secrets = new SecretValues([KEY, 'var-secret-Value-9']);
const options = {
  agentVersion: '1.2.3',
  secrets,
  envValues: ['env-proxy-password', 'http://proxy.invalid:3128'],
};

const report = (error: Error, message = error.message) => buildErrorReport({ message, error }, options);
const whole = (r: ErrorReport) => `${r.message}\n${r.stack ?? ''}`;

describe('error reports', () => {
  it('carry message, stack frames, agent version, platform and Node.js version', () => {
    const error = new TypeError('cannot read the spool');
    const r = report(error);
    expect(r).toMatchObject({
      message: 'TypeError: cannot read the spool',
      agentVersion: '1.2.3',
      platform: `${process.platform}-${process.arch}`,
      nodeVersion: process.version,
    });
    expect(r.stack).toMatch(/^\s+at /);
    expect(r.stack).toContain('error-reporter.test.ts');
    expect(Number.isNaN(Date.parse(r.time))).toBe(false);
  });

  it('hold no API key, even one they were not told about', () => {
    const other = 'pl_other.paris.AnotherKeyValue_1234567';
    const r = report(new Error(`auth failed for ${KEY} and ${other}, header Bearer ${'x'.repeat(20)}`));
    expect(whole(r)).not.toContain(KEY);
    expect(whole(r)).not.toContain(other);
    expect(whole(r)).not.toContain('x'.repeat(20));
    expect(r.message).toContain('[redacted]');
  });

  it('hold no environment variables', () => {
    const r = report(
      new Error(
        'spawn failed with env API_KEY=abc123 HTTPS_PROXY=http://user:env-proxy-password@proxy.invalid:3128 DEBUG=1',
      ),
    );
    for (const value of ['abc123', 'env-proxy-password', 'proxy.invalid', 'user:']) {
      expect(whole(r)).not.toContain(value);
    }
    expect(r.message).toContain('API_KEY=[redacted]');
  });

  it('hold no check configuration or secret variable values', () => {
    const check = {
      name: 'Login',
      request: {
        url: 'https://intranet.invalid/login',
        headers: [{ key: 'X-Token', value: 'var-secret-Value-9' }],
      },
    };
    const r = report(new Error(`cannot run check ${JSON.stringify(check)} with [inner, list]`));
    for (const value of ['Login', 'intranet.invalid', 'X-Token', 'var-secret-Value-9', 'inner']) {
      expect(whole(r)).not.toContain(value);
    }
    expect(r.message).toBe('cannot run check {…} with […]');
  });

  it('hold no URLs or addresses', () => {
    const r = report(
      new Error(
        'GET https://intranet.invalid/a?b=c failed; tried 10.0.0.7:8443 and [fd00::1]:443, see www.intranet.invalid/x',
      ),
    );
    for (const value of ['intranet.invalid', '10.0.0.7', 'fd00::1', '?b=c'])
      expect(whole(r)).not.toContain(value);
    expect(r.message).toBe('GET [url] failed; tried [address] and [address], see [url]');
  });

  it('hold no headers', () => {
    const r = report(
      new Error(
        'upstream refused\nAuthorization: Basic dXNlcjpwYXNz\nCookie: session=abc\nX-Api-Key: k-123\nContent-Type: text/html',
      ),
    );
    for (const value of ['dXNlcjpwYXNz', 'session=abc', 'k-123', 'Cookie', 'X-Api-Key']) {
      expect(whole(r)).not.toContain(value);
    }
    expect(r.message).toBe('upstream refused');
  });

  it('hold no response bodies', () => {
    const html = report(
      new Error('unexpected answer <html><body><p>internal customer list</p></body></html>'),
    );
    const json = report(new Error('unexpected answer {"customers":[{"name":"Ada"}]}'));
    const quoted = report(
      new Error("assertion failed: expected 'ok' but the body was 'internal customer list'"),
    );
    for (const r of [html, json, quoted]) {
      expect(whole(r)).not.toContain('customer');
      expect(whole(r)).not.toContain('Ada');
    }
    expect(html.message).toBe('unexpected answer <…>');
  });

  it('are not sent with EXTERNAL_OBSERVABILITY=off, and at most a few a minute otherwise', async () => {
    const sent: ErrorReport[] = [];
    const send = async (r: ErrorReport) => {
      sent.push(r);
    };
    const off = createErrorReporter({ ...options, enabled: false, send });
    off.report({ message: 'x', error: null });
    await off.flush();
    expect(sent).toEqual([]);

    const on = createErrorReporter({ ...options, enabled: true, send, perMinute: 3 });
    for (let i = 0; i < 10; i++) on.report({ message: `error ${i}`, error: null });
    await on.flush();
    expect(sent.map((r) => r.message)).toEqual(['error 0', 'error 1', 'error 2']);
  });
});

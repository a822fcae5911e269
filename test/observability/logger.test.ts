import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type ErrorEvent, type LogLevelName } from '../../src/observability/logger.js';
import { SecretValues } from '../../src/observability/secret-values.js';

const KEY = 'pl_acme.berlin-1.Sup3rSecretKeyValue_42xyz';

function capture(level: LogLevelName, secrets = new SecretValues([KEY])) {
  const lines: Record<string, any>[] = [];
  const raw: string[] = [];
  const errors: ErrorEvent[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      raw.push(chunk.toString());
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const log = createLogger({ level, destination, secrets, onError: (e) => errors.push(e) });
  return { log, lines, raw, errors, secrets };
}

describe('logger', () => {
  it('writes JSON lines and maps LOG_LEVEL onto levels (LOG is info)', () => {
    for (const [level, shown] of [
      ['DEBUG', ['debug', 'info', 'warn', 'error']],
      ['LOG', ['info', 'warn', 'error']],
      ['INFO', ['info', 'warn', 'error']],
      ['WARN', ['warn', 'error']],
      ['ERROR', ['error']],
    ] as const) {
      const { log, lines } = capture(level);
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      expect(lines.map((l) => l.level)).toEqual(shown);
      expect(typeof lines[0]?.time).toBe('string');
    }
  });

  it('redacts keys, authorization headers, passwords and secrets by field name', () => {
    const { log, raw } = capture('INFO');
    log.info(
      {
        apiKey: 'k-value-1',
        password: 'p-value-2',
        headers: { authorization: 'Basic a-value-3', cookie: 'c-value-4' },
        request: { token: 't-value-5', secret: 's-value-6', key: 'x-value-7' },
      },
      'request',
    );
    log.warn({ err: Object.assign(new Error('refused'), { token: 'e-value-8' }) }, 'call failed');
    const text = raw.join('');
    for (const value of [
      'k-value-1',
      'p-value-2',
      'a-value-3',
      'c-value-4',
      't-value-5',
      's-value-6',
      'x-value-7',
      'e-value-8',
    ]) {
      expect(text).not.toContain(value);
    }
    expect(text).toContain('[redacted]');
    // The error is still written as an error, with its message and stack.
    expect(JSON.parse(raw[1] ?? '{}').err).toMatchObject({ type: 'Error', message: 'refused' });
  });

  it('masks known secret values, the API key and bearer tokens wherever they appear', () => {
    const { log, raw, secrets } = capture('INFO');
    secrets.add(['variable-secret-value']);
    log.info(
      { detail: { note: 'sent variable-secret-value' } },
      `key ${KEY} and Bearer abc.def-ghi and %22variable-secret-value`,
    );
    log.warn(new Error(`failed with ${KEY}`));
    const text = raw.join('');
    expect(text).not.toContain('variable-secret-value');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('abc.def-ghi');
    expect(text).toContain('*****');
  });

  it('hands error-level events (with their error) to the error reporter, and nothing below', () => {
    const { log, errors } = capture('DEBUG');
    log.warn(new Error('just a warning'));
    const boom = new Error('boom');
    log.error({ err: boom }, 'delivery failed');
    log.fatal(boom);
    log.error('plain message');
    expect(errors).toEqual([
      { message: 'delivery failed: boom', error: boom },
      { message: 'boom', error: boom },
      { message: 'plain message', error: null },
    ]);
  });
});

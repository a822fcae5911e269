import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/server/config.js';
import { SERVER_ENV_NAMES } from '../../src/server/env-names.js';

function problems(env: Record<string, string>): string[] {
  const loaded = loadServerConfig(env);
  return loaded.ok ? [] : loaded.problems;
}

describe('server configuration', () => {
  it('applies the documented defaults when a setting is unset or empty', () => {
    for (const env of [{}, { PORT: '', LOG_LEVEL: ' ', SLACK_API_URL: '', ALERT_RETRY_BASE_MS: '' }]) {
      const loaded = loadServerConfig(env);
      expect(loaded.ok && loaded.config).toEqual({
        port: 3000,
        host: '0.0.0.0',
        databaseUrl: undefined,
        dataDir: '.vantage/server',
        pgliteCacheMb: 32,
        logLevel: 'INFO',
        publicUrl: 'http://localhost:3000',
        bootstrapKey: undefined,
        metricsToken: undefined,
        trustProxy: false,
        apiRateLimit: 600,
        alerting: {
          smtpUrl: undefined,
          emailFrom: 'Vantage <alerts@localhost>',
          slackApiUrl: 'https://slack.com/api',
          pagerDutyEventsUrl: 'https://events.pagerduty.com/v2/enqueue',
          opsgenieApiUrl: undefined,
          twilio: {
            apiUrl: 'https://api.twilio.com',
            accountSid: undefined,
            authToken: undefined,
            fromNumber: undefined,
          },
          retryBaseMs: 1000,
        },
        resultRetentionDays: 30,
      });
    }
  });

  it('takes every setting from the environment', () => {
    const loaded = loadServerConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://vantage:pw@db.internal:5432/vantage',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: 'https://vantage.example.com/',
      TRUST_PROXY: '10.0.0.0/8,192.168.1.1',
      SMTP_URL: 'smtps://user:pw@mail.internal:465',
      OPSGENIE_API_URL: 'http://127.0.0.1:9000/',
      ALERT_RETRY_BASE_MS: '250',
      VANTAGE_RESULT_RETENTION_DAYS: '7',
      VANTAGE_PGLITE_CACHE_MB: '256',
      API_RATE_LIMIT: '20000',
    });
    expect(loaded.ok && loaded.config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://vantage:pw@db.internal:5432/vantage',
      logLevel: 'WARN',
      publicUrl: 'https://vantage.example.com',
      trustProxy: ['10.0.0.0/8', '192.168.1.1'],
      apiRateLimit: 20000,
      alerting: {
        smtpUrl: 'smtps://user:pw@mail.internal:465',
        opsgenieApiUrl: 'http://127.0.0.1:9000',
        retryBaseMs: 250,
      },
      resultRetentionDays: 7,
      pgliteCacheMb: 256,
    });
  });

  it('refuses a bad value with one line naming the variable and its rule, the way the agent does', () => {
    expect(problems({ PORT: 'abc' })).toEqual(['PORT: must be a whole number from 0 to 65535']);
    expect(problems({ PORT: '70000' })).toEqual(['PORT: must be a whole number from 0 to 65535']);
    expect(
      problems({
        DATABASE_URL: 'mysql://db/vantage',
        LOG_LEVEL: 'TRACE',
        PUBLIC_URL: 'ftp://vantage.example.com',
        VANTAGE_BOOTSTRAP_KEY: 'short',
        TRUST_PROXY: 'everyone',
        SMTP_URL: 'mail.internal',
        ALERT_RETRY_BASE_MS: '10',
        VANTAGE_RESULT_RETENTION_DAYS: '0',
        VANTAGE_PGLITE_CACHE_MB: '8',
        API_RATE_LIMIT: '0',
      }),
    ).toEqual([
      'DATABASE_URL: must be a postgres:// or postgresql:// URL like postgres://vantage:secret@db.internal:5432/vantage',
      'VANTAGE_PGLITE_CACHE_MB: must be a whole number from 16 to 16384',
      'LOG_LEVEL: must be one of DEBUG, LOG, INFO, WARN, ERROR',
      'PUBLIC_URL: must be an http:// or https:// URL like https://vantage.example.com',
      'VANTAGE_BOOTSTRAP_KEY: must be at least 20 characters',
      'TRUST_PROXY: must be true, false, or a comma-separated list of proxy addresses or CIDR ranges',
      'SMTP_URL: must be an smtp:// or smtps:// URL like smtps://user:pass@mail.internal:465',
      'ALERT_RETRY_BASE_MS: must be a whole number from 100 to 600000',
      'VANTAGE_RESULT_RETENTION_DAYS: must be a whole number from 1 to 3650',
      'API_RATE_LIMIT: must be a whole number from 1 to 1000000',
    ]);
    for (const days of ['1.5', '-3', 'a month', '3651']) {
      expect(problems({ VANTAGE_RESULT_RETENTION_DAYS: days })).toEqual([
        'VANTAGE_RESULT_RETENTION_DAYS: must be a whole number from 1 to 3650',
      ]);
    }
  });

  it('lists every setting for --help', () => {
    expect(SERVER_ENV_NAMES).toEqual(
      expect.arrayContaining([
        'PORT',
        'DATABASE_URL',
        'ALERT_RETRY_BASE_MS',
        'VANTAGE_RESULT_RETENTION_DAYS',
      ]),
    );
  });
});

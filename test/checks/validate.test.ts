import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCheck, problemsOf } from '../../src/checks/index.js';

function problems(input: unknown): string[] {
  const parsed = parseCheck(input);
  return parsed.ok ? [] : parsed.problems.map((p) => `${p.path}: ${p.message}`);
}

const url = (extra: Record<string, unknown> = {}) => ({
  checkType: 'URL',
  name: 'Homepage',
  request: { url: 'https://app.test/' },
  ...extra,
});

describe('check model: defaults', () => {
  it('applies the shared and URL defaults of the spec', () => {
    const parsed = parseCheck(url());
    expect(parsed.ok).toBe(true);
    if (!parsed.ok || parsed.value.checkType !== 'URL') return;
    const check = parsed.value;
    expect(check).toMatchObject({
      activated: true,
      muted: false,
      doubleCheck: true,
      shouldFail: false,
      useGlobalAlertSettings: true,
      runParallel: false,
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: { method: 'GET', ipFamily: 'IPv4', followRedirects: true, skipSSL: false, assertions: [] },
    });
  });

  it.each([
    ['API', { request: { url: 'https://a.test' } }, { degradedResponseTime: 10000, maxResponseTime: 20000 }],
    [
      'TCP',
      { request: { hostname: 'db.internal', port: 5432 } },
      { degradedResponseTime: 4000, maxResponseTime: 5000 },
    ],
    ['DNS', { request: { query: 'app.test' } }, { degradedResponseTime: 500, maxResponseTime: 1000 }],
    [
      'ICMP',
      { request: { hostname: 'gw.internal' } },
      {
        degradedResponseTime: 10000,
        maxResponseTime: 20000,
        degradedPacketLossThreshold: 10,
        maxPacketLossThreshold: 20,
      },
    ],
  ])('applies the %s response-time defaults', (checkType, fields, expected) => {
    const parsed = parseCheck({ checkType, name: 'x', ...fields });
    expect(parsed.ok && parsed.value).toMatchObject(expected);
  });

  it('fills request defaults per kind', () => {
    const api = parseCheck({ checkType: 'API', name: 'a', request: { url: 'https://a.test' } });
    expect(api.ok && api.value).toMatchObject({
      request: { method: 'GET', body: '', bodyType: 'NONE', headers: [] },
    });
    const dns = parseCheck({ checkType: 'DNS', name: 'd', request: { query: 'a.test' } });
    expect(dns.ok && dns.value).toMatchObject({ request: { recordType: 'A', port: 53, protocol: 'UDP' } });
    const icmp = parseCheck({ checkType: 'ICMP', name: 'i', request: { hostname: 'h' } });
    expect(icmp.ok && icmp.value).toMatchObject({ request: { pingCount: 10, ipFamily: 'IPv4' } });
  });

  it('fills assertion fields: property empty, regex null, target as a string', () => {
    const parsed = parseCheck(
      url({
        request: {
          url: 'https://a.test',
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: 200 }],
        },
      }),
    );
    expect(parsed.ok && parsed.value).toMatchObject({
      request: {
        assertions: [
          { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', regex: null },
        ],
      },
    });
  });

  it('fills retry strategy defaults', () => {
    const parsed = parseCheck(url({ retryStrategy: { type: 'LINEAR' } }));
    expect(parsed.ok && parsed.value).toMatchObject({
      retryStrategy: {
        type: 'LINEAR',
        baseBackoffSeconds: 60,
        maxRetries: 2,
        maxDurationSeconds: 600,
        sameRegion: true,
      },
    });
  });
});

describe('check model: rules name the field and the rule', () => {
  it.each([
    [{ frequency: 7 }, 'frequency: must be one of 0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440'],
    [
      { frequency: 10, frequencyOffset: 101 },
      'frequencyOffset: must be between 1 and 100 when frequency is 10',
    ],
    [
      { frequency: 60, frequencyOffset: 601 },
      'frequencyOffset: must be between 1 and 600 when frequency is 60',
    ],
    [
      { frequency: 120, frequencyOffset: 3 },
      'frequencyOffset: must be between 1 and 2 when frequency is 120',
    ],
    [
      { frequency: 1440, frequencyOffset: 25 },
      'frequencyOffset: must be between 1 and 24 when frequency is 1440',
    ],
    [{ frequencyOffset: 0 }, 'frequencyOffset: must be at least 1'],
    [
      { frequency: 0, frequencyOffset: 10 },
      'frequency: 0 (sub-minute) is only allowed for API and TCP checks',
    ],
    [{ description: 'x'.repeat(501) }, 'description: must be at most 500 characters'],
    [{ groupOrder: -1 }, 'groupOrder: must be at least 0'],
    [{ locations: ['mars-1'] }, 'locations[0]: must be one of us-east-1'],
    [{ runtimeId: '2020.01' }, 'runtimeId: must be one of 2026.04, 2025.04'],
    [{ degradedResponseTime: 30001 }, 'degradedResponseTime: must be at most 30000'],
    [{ maxResponseTime: -1 }, 'maxResponseTime: must be at least 0'],
    [{ retryStrategy: { type: 'LINEAR', maxRetries: 11 } }, 'retryStrategy.maxRetries: must be at most 10'],
    [
      { retryStrategy: { type: 'LINEAR', maxDurationSeconds: 601 } },
      'retryStrategy.maxDurationSeconds: must be at most 600',
    ],
    [
      { retryStrategy: { type: 'SOMETIMES' } },
      'retryStrategy.type: must be one of LINEAR, EXPONENTIAL, FIXED, SINGLE_RETRY',
    ],
    [{ frequncy: 5 }, 'frequncy: is not a known field'],
    [{ request: { url: 'ftp://a.test' } }, 'request.url: must be an http:// or https:// URL'],
    [
      { request: { url: `https://a.test/${'a'.repeat(2048)}` } },
      'request.url: must be at most 2048 characters',
    ],
    [{ request: { url: 'https://a.test', method: 'POST' } }, 'request.method: must be GET'],
    [
      {
        request: {
          url: 'https://a.test',
          assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', target: '1' }],
        },
      },
      'request.assertions[0].source: must be STATUS_CODE',
    ],
    [
      {
        request: {
          url: 'https://a.test',
          assertions: [{ source: 'STATUS_CODE', comparison: 'CONTAINS', target: '1' }],
        },
      },
      'request.assertions[0].comparison: must be one of EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN',
    ],
  ])('%j', (fields, expected) => {
    expect(problems(url(fields)).join('\n')).toContain(expected);
  });

  it('accepts every frequencyOffset rule at its bounds', () => {
    for (const [frequency, frequencyOffset] of [
      [1, 10],
      [10, 100],
      [60, 600],
      [120, 2],
      [1440, 24],
      [720, 12],
    ]) {
      expect(problems(url({ frequency, frequencyOffset }))).toEqual([]);
    }
    for (const frequencyOffset of [10, 20, 30]) {
      expect(
        problems({
          checkType: 'API',
          name: 'a',
          request: { url: 'https://a.test' },
          frequency: 0,
          frequencyOffset,
        }),
      ).toEqual([]);
    }
  });

  it('requires 10, 20 or 30 seconds for sub-minute API and TCP checks', () => {
    const tcp = { checkType: 'TCP', name: 't', request: { hostname: 'h', port: 1 }, frequency: 0 };
    expect(problems({ ...tcp, frequencyOffset: 15 })).toEqual([
      'frequencyOffset: must be 10, 20 or 30 when frequency is 0',
    ]);
    expect(problems(tcp)[0]).toMatch(/^frequencyOffset: is required when frequency is 0/);
  });

  it('checks ICMP packet-loss thresholds and limits', () => {
    const icmp = (fields: Record<string, unknown>) => ({
      checkType: 'ICMP',
      name: 'i',
      request: { hostname: 'h' },
      ...fields,
    });
    expect(problems(icmp({ degradedPacketLossThreshold: 0 }))).toEqual([
      'degradedPacketLossThreshold: must be greater than 0',
    ]);
    expect(problems(icmp({ maxPacketLossThreshold: 101 }))).toEqual([
      'maxPacketLossThreshold: must be at most 100',
    ]);
    expect(problems(icmp({ degradedPacketLossThreshold: 30, maxPacketLossThreshold: 20 }))).toEqual([
      'maxPacketLossThreshold: must be at least degradedPacketLossThreshold (30)',
    ]);
    expect(problems(icmp({ maxResponseTime: 300001 }))).toEqual(['maxResponseTime: must be at most 300000']);
    expect(problems(icmp({ request: { hostname: 'h', pingCount: 51 } }))).toEqual([
      'request.pingCount: must be at most 50',
    ]);
    expect(problems(icmp({ degradedResponseTime: 300000, maxResponseTime: 300000 }))).toEqual([]);
  });

  it('limits environmentVariables to 100', () => {
    const vars = Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: 'v' }));
    expect(problems(url({ environmentVariables: vars }))).toEqual([
      'environmentVariables: must have at most 100 items',
    ]);
  });

  it('checks TCP and DNS requests', () => {
    expect(problems({ checkType: 'TCP', name: 't', request: { hostname: 'tcp://h', port: 80 } })).toEqual([
      'request.hostname: must not contain a scheme (like https://)',
    ]);
    expect(problems({ checkType: 'TCP', name: 't', request: { hostname: 'h:80', port: 80 } })).toEqual([
      'request.hostname: must not contain a port: use the port field',
    ]);
    expect(problems({ checkType: 'TCP', name: 't', request: { hostname: 'h', port: 0 } })).toEqual([
      'request.port: must be at least 1',
    ]);
    expect(problems({ checkType: 'DNS', name: 'd', request: { query: 'q'.repeat(101) } })).toEqual([
      'request.query: must be at most 100 characters',
    ]);
    expect(
      problems({ checkType: 'DNS', name: 'd', request: { query: 'q', recordType: 'PTR' } })[0],
    ).toContain('request.recordType: must be one of A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS');
    expect(problems({ checkType: 'DNS', name: 'd', request: { query: 'q' }, maxResponseTime: 5001 })).toEqual(
      ['maxResponseTime: must be at most 5000'],
    );
  });

  it('checks heartbeat periods', () => {
    const hb = (period: number, periodUnit: string) => ({
      checkType: 'HEARTBEAT',
      name: 'h',
      heartbeat: { period, periodUnit, grace: 1, graceUnit: 'hours' },
    });
    expect(problems(hb(29, 'seconds'))).toEqual([
      'heartbeat.period: must be between 30 seconds and 365 days',
    ]);
    expect(problems(hb(366, 'days'))).toEqual(['heartbeat.period: must be between 30 seconds and 365 days']);
    expect(problems(hb(30, 'seconds'))).toEqual([]);
  });

  it('reports every problem of a check at once, cross-field rules included', () => {
    const found = problems(
      url({ frequencyOffset: 200, description: 'x'.repeat(501), request: { url: 'nope' } }),
    );
    expect(found).toHaveLength(3);
  });

  it('names the missing or unknown checkType', () => {
    expect(problems({ name: 'x' })[0]).toMatch(/^checkType: is required \(one of URL, API/);
    expect(problems({ name: 'x', checkType: 'SMTP' })[0]).toMatch(/^checkType: must be one of URL, API/);
  });

  it('validates assertion details per source', () => {
    const api = (assertion: Record<string, unknown>) => ({
      checkType: 'API',
      name: 'a',
      request: { url: 'https://a.test', assertions: [{ comparison: 'EQUALS', target: 'x', ...assertion }] },
    });
    expect(problems(api({ source: 'JSON_BODY', property: 'items[0]' }))).toEqual([
      'request.assertions[0].property: must be a JSONPath starting with $',
    ]);
    expect(problems(api({ source: 'TEXT_BODY', regex: '(' }))).toEqual([
      'request.assertions[0].regex: must be a valid regular expression',
    ]);
    const icmp = {
      checkType: 'ICMP',
      name: 'i',
      request: {
        hostname: 'h',
        assertions: [{ source: 'LATENCY', property: 'p99', comparison: 'LESS_THAN', target: '5' }],
      },
    };
    expect(problems(icmp)).toEqual([
      'request.assertions[0].property: must be one of avg, min, max, stdDev for a LATENCY assertion',
    ]);
  });
});

describe('check model: hostnames', () => {
  it('accepts IPv6 literals and names, refuses a port', () => {
    for (const hostname of ['::1', '[::1]', 'fe80::1', '127.0.0.1', 'db.internal']) {
      expect(problems({ checkType: 'TCP', name: 't', request: { hostname, port: 5432 } }), hostname).toEqual(
        [],
      );
    }
    expect(problems({ checkType: 'TCP', name: 't', request: { hostname: '[::1]:80', port: 80 } })).toEqual([
      'request.hostname: must not contain a port: use the port field',
    ]);
  });
});

describe('check model: messages that say what is wrong', () => {
  it('tells a missing field from one of the wrong type', () => {
    expect(problems({ checkType: 'URL', request: { url: 'https://app.test/' } })).toContain(
      'name: is required (a string)',
    );
    expect(problems(url({ name: 42 }))).toEqual(['name: must be a string']);
    expect(problems(url({ name: null }))).toEqual(['name: must be a string']);
  });

  it('says what a pattern means, or names it, never "must be a valid regex"', () => {
    const schema = z.object({
      key: z.string().regex(/^[A-Z]+$/, { message: 'must hold only capital letters' }),
      slug: z.string().regex(/^[a-z-]+$/),
    });
    const parsed = schema.safeParse({ key: 'abc', slug: 'A B' });
    expect(problemsOf(parsed.error as z.ZodError).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'key: must hold only capital letters',
      'slug: must match /^[a-z-]+$/',
    ]);
  });
});

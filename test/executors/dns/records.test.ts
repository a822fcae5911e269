import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeDns } from '../../../src/executors/dns/index.js';
import { httpsRecord, startDnsServer, type TestDnsServer, zone } from '../../support/dns-server.js';
import { assertion, dnsCheck, runContext } from './fixtures.js';

const ALPN_H2_H3 = Buffer.from('\x02h2\x02h3', 'latin1');
const PORT_8443 = Buffer.from([0x20, 0xfb]);
const IPV4_HINT = Buffer.from([127, 0, 0, 1]);
const IPV6_HINT = Buffer.from([...Array(15).fill(0), 1]);

const RECORDS = [
  { name: 'example.test', type: 'A', ttl: 300, data: '127.0.0.1' },
  { name: 'example.test', type: 'A', ttl: 300, data: '127.0.0.2' },
  { name: 'example.test', type: 'AAAA', ttl: 300, data: '::1' },
  { name: 'www.example.test', type: 'CNAME', ttl: 60, data: 'example.test' },
  { name: 'example.test', type: 'MX', ttl: 3600, data: { preference: 10, exchange: 'mail.example.test' } },
  { name: 'example.test', type: 'NS', ttl: 86400, data: 'ns1.example.test' },
  { name: 'example.test', type: 'TXT', ttl: 120, data: ['v=spf1 ', 'say "hi" -all'] },
  {
    name: 'example.test',
    type: 'SOA',
    ttl: 900,
    data: {
      mname: 'ns1.example.test',
      rname: 'hostmaster.example.test',
      serial: 2024010101,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minimum: 300,
    },
  },
  httpsRecord('example.test', 600, 1, '.', [
    [1, ALPN_H2_H3],
    [3, PORT_8443],
    [4, IPV4_HINT],
    [6, IPV6_HINT],
  ]),
  httpsRecord('alias.example.test', 600, 0, 'cdn.example.test', []),
];

/** What a user sees for each record type: the JSON answer's data and the dig-style text line. */
const EXPECTED = [
  { type: 'A', query: 'example.test', data: '127.0.0.1', line: 'example.test. 300 IN A 127.0.0.1' },
  { type: 'AAAA', query: 'example.test', data: '::1', line: 'example.test. 300 IN AAAA ::1' },
  {
    type: 'CNAME',
    query: 'www.example.test',
    data: 'example.test',
    line: 'www.example.test. 60 IN CNAME example.test.',
  },
  {
    type: 'MX',
    query: 'example.test',
    data: '10 mail.example.test',
    line: 'example.test. 3600 IN MX 10 mail.example.test.',
  },
  {
    type: 'NS',
    query: 'example.test',
    data: 'ns1.example.test',
    line: 'example.test. 86400 IN NS ns1.example.test.',
  },
  {
    type: 'TXT',
    query: 'example.test',
    data: 'v=spf1 say "hi" -all',
    line: 'example.test. 120 IN TXT "v=spf1 " "say \\"hi\\" -all"',
  },
  {
    type: 'SOA',
    query: 'example.test',
    data: 'ns1.example.test hostmaster.example.test 2024010101 7200 3600 1209600 300',
    line: 'example.test. 900 IN SOA ns1.example.test. hostmaster.example.test. 2024010101 7200 3600 1209600 300',
  },
  {
    type: 'HTTPS',
    query: 'example.test',
    data: '1 . alpn=h2,h3 port=8443 ipv4hint=127.0.0.1 ipv6hint=::1',
    line: 'example.test. 600 IN HTTPS 1 . alpn=h2,h3 port=8443 ipv4hint=127.0.0.1 ipv6hint=::1',
  },
  {
    type: 'HTTPS',
    query: 'alias.example.test',
    data: '0 cdn.example.test',
    line: 'alias.example.test. 600 IN HTTPS 0 cdn.example.test.',
  },
];

let server: TestDnsServer;
beforeAll(async () => {
  server = await startDnsServer(zone(RECORDS));
});
afterAll(() => server.close());

describe.each(['UDP', 'TCP'] as const)('DNS check over %s', (protocol) => {
  it.each(EXPECTED)('answers a $type query for $query', async ({ type, query, data }) => {
    const check = dnsCheck(server, { query, recordType: type, protocol });
    const attempt = await executeDns(check, runContext());

    expect(attempt.error).toBeNull();
    expect(attempt.hasErrors || attempt.hasFailures || attempt.networkError).toBe(false);
    expect(server.queries.at(-1)?.protocol).toBe(protocol);
    const detail = 'dnsCheckResult' in attempt.detail ? attempt.detail.dnsCheckResult : null;
    expect(detail?.requestError).toBeNull();
    expect(detail?.response).toMatchObject({
      Status: 0,
      TC: false,
      RD: true,
      RA: true,
      Question: [{ name: query, type }],
    });
    expect(detail?.response?.Answer[0]).toEqual({ name: query, type, TTL: expect.any(Number), data });
    expect(detail?.timingPhases.total).toBe(attempt.responseTime);
  });

  it.each(EXPECTED)(
    'offers the $type answer as dig-style text to TEXT_ANSWER',
    async ({ type, query, line }) => {
      const check = dnsCheck(server, {
        query,
        recordType: type,
        protocol,
        assertions: [assertion('TEXT_ANSWER', 'EQUALS', line, { regex: '^([^\\n]*)' })],
      });
      const attempt = await executeDns(check, runContext());
      expect(attempt.error).toBeNull();
      expect(attempt.hasFailures).toBe(false);
    },
  );

  it('gives every record of the answer section, one line each', async () => {
    const check = dnsCheck(server, {
      query: 'example.test',
      protocol,
      assertions: [assertion('TEXT_ANSWER', 'EQUALS', '127.0.0.2', { regex: '\\n\\S+ \\d+ IN A (\\S+)$' })],
    });
    const attempt = await executeDns(check, runContext());
    expect(attempt.error).toBeNull();
  });

  it('passes and fails JSON_ANSWER assertions by JSONPath', async () => {
    const passing = dnsCheck(server, {
      query: 'example.test',
      protocol,
      assertions: [
        assertion('JSON_ANSWER', 'EQUALS', '127.0.0.1', { property: '$.Answer[0].data' }),
        assertion('JSON_ANSWER', 'EQUALS', '2', { property: '$.Answer.length' }),
        assertion('JSON_ANSWER', 'EQUALS', '300', { property: '$.Answer[*].TTL' }),
        assertion('JSON_ANSWER', 'EQUALS', '0', { property: '$.Status' }),
      ],
    });
    const passed = await executeDns(passing, runContext());
    expect(passed.error).toBeNull();
    const detail = 'dnsCheckResult' in passed.detail ? passed.detail.dnsCheckResult : null;
    expect(detail?.assertions.map((a) => [a.actual, a.error])).toEqual([
      ['127.0.0.1', null],
      [2, null],
      [[300, 300], null],
      [0, null],
    ]);

    const failing = dnsCheck(server, {
      query: 'example.test',
      protocol,
      assertions: [assertion('JSON_ANSWER', 'EQUALS', '3', { property: '$.Answer.length' })],
    });
    const failed = await executeDns(failing, runContext());
    expect(failed.hasFailures).toBe(true);
    expect(failed.hasErrors).toBe(false);
    expect(failed.error).toMatch(/Answer\.length/);
  });

  it('compares the first capture group of a TEXT_ANSWER regex', async () => {
    const check = (target: string) =>
      dnsCheck(server, {
        query: 'example.test',
        recordType: 'MX',
        protocol,
        assertions: [assertion('TEXT_ANSWER', 'EQUALS', target, { regex: 'IN MX (\\d+) ' })],
      });
    expect((await executeDns(check('10'), runContext())).hasFailures).toBe(false);
    const failed = await executeDns(check('20'), runContext());
    expect(failed.hasFailures).toBe(true);
    expect(failed.error).toContain('20');
  });

  it('checks the response code with RESPONSE_CODE', async () => {
    const check = (target: string) =>
      dnsCheck(server, {
        query: 'missing.example.test',
        protocol,
        assertions: [assertion('RESPONSE_CODE', 'EQUALS', target)],
      });
    const passed = await executeDns(check('NXDOMAIN'), runContext());
    expect(passed.error).toBeNull();
    expect(passed.hasFailures).toBe(false);
    const detail = 'dnsCheckResult' in passed.detail ? passed.detail.dnsCheckResult : null;
    expect(detail?.response?.Status).toBe(3);
    expect(detail?.assertions[0]?.actual).toBe('NXDOMAIN');

    const failed = await executeDns(check('NOERROR'), runContext());
    expect(failed.hasFailures).toBe(true);
    expect(failed.networkError).toBe(false);
  });

  it('fails any response code but NOERROR when no assertion names one', async () => {
    const nxdomain = await executeDns(
      dnsCheck(server, { query: 'missing.example.test', protocol }),
      runContext(),
    );
    expect(nxdomain.hasFailures).toBe(true);
    expect(nxdomain.hasErrors).toBe(false);
    expect(nxdomain.error).toBe('response code NXDOMAIN is not NOERROR');

    const other = dnsCheck(server, {
      query: 'missing.example.test',
      protocol,
      assertions: [assertion('RESPONSE_TIME', 'LESS_THAN', '5000')],
    });
    expect((await executeDns(other, runContext())).error).toBe('response code NXDOMAIN is not NOERROR');

    const empty = await executeDns(dnsCheck(server, { query: 'www.example.test', protocol }), runContext());
    expect(empty.hasFailures).toBe(false);
  });

  it('substitutes variables in the query', async () => {
    const check = dnsCheck(server, { query: '{{HOST}}.test', protocol });
    const attempt = await executeDns(check, runContext({ variables: [{ key: 'HOST', value: 'example' }] }));
    expect(attempt.error).toBeNull();
    expect(server.queries.at(-1)?.packet.questions?.[0]?.name).toBe('example.test');
  });

  it('resolves a nameServer given as localhost', async () => {
    const check = dnsCheck(server, { query: 'example.test', protocol, nameServer: 'localhost' });
    const attempt = await executeDns(check, runContext());
    expect(attempt.error).toBeNull();
    const detail = 'dnsCheckResult' in attempt.detail ? attempt.detail.dnsCheckResult : null;
    expect(detail?.timingPhases).toHaveProperty('dns');
  });
});

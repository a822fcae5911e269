import dnsPacket from 'dns-packet';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeDns } from '../../../src/executors/dns/index.js';
import type { Attempt } from '../../../src/executors/types.js';
import { respond, startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { dnsCheck, runContext } from './fixtures.js';

const A_RECORD = { name: 'example.test', type: 'A', ttl: 60, data: '127.0.0.1' };
const GARBAGE = Buffer.from('this is not a DNS message at all');

let server: TestDnsServer;
beforeAll(async () => {
  server = await startDnsServer(() => null);
});
afterAll(() => server.close());
afterEach(() => {
  server.queries.length = 0;
});

function detailOf(attempt: Attempt) {
  if (!('dnsCheckResult' in attempt.detail)) throw new Error('no dnsCheckResult');
  return attempt.detail.dnsCheckResult;
}

/** Sockets of this process, by kind: what a run must leave as it found. */
function openSockets(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((r) => r === 'UDPWrap' || r === 'TCPSocketWrap')
    .sort();
}

async function settled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe.each(['UDP', 'TCP'] as const)('a DNS server over %s that', (protocol) => {
  it('answers after the degraded threshold marks the run degraded, not failed', async () => {
    server.handle((query) => ({ ...respond(query, { answers: [A_RECORD] }), delayMs: 120 }));
    const check = dnsCheck(
      server,
      { query: 'example.test', protocol },
      { degradedResponseTime: 50, maxResponseTime: 3000 },
    );
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({
      isDegraded: true,
      overMaxResponseTime: false,
      hasErrors: false,
      error: null,
    });
    expect(attempt.responseTime).toBeGreaterThanOrEqual(100);
  });

  it('answers after maxResponseTime fails the run when the limit is reached', async () => {
    server.handle((query) => ({ ...respond(query, { answers: [A_RECORD] }), delayMs: 1500 }));
    const check = dnsCheck(server, { query: 'example.test', protocol }, { maxResponseTime: 200 });
    await settled();
    const before = openSockets();
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ overMaxResponseTime: true, hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/no answer within maxResponseTime of 200 ms/);
    expect(attempt.responseTime).toBeGreaterThanOrEqual(190);
    expect(attempt.responseTime).toBeLessThan(1400);
    expect(detailOf(attempt).response).toBeNull();
    expect(detailOf(attempt).requestError).toBe(attempt.error);
    await settled();
    expect(openSockets()).toEqual(before);
  });

  it('never answers ends the run at maxResponseTime', async () => {
    server.handle(() => null);
    const check = dnsCheck(server, { query: 'example.test', protocol }, { maxResponseTime: 150 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ overMaxResponseTime: true, hasErrors: true, networkError: true });
    expect(attempt.responseTime).toBeLessThan(1500);
    expect(server.queries.map((q) => q.protocol)).toEqual([protocol]);
  });

  it('is still silent when the run is cancelled stops at once', async () => {
    server.handle(() => null);
    const controller = new AbortController();
    const check = dnsCheck(server, { query: 'example.test', protocol }, { maxResponseTime: 5000 });
    setTimeout(() => controller.abort(new Error('cancelled through the API')), 50);
    await settled();
    const before = openSockets();
    const attempt = await executeDns(check, runContext({ signal: controller.signal }));
    expect(attempt).toMatchObject({ hasErrors: true, overMaxResponseTime: false, networkError: true });
    expect(attempt.error).toMatch(/the run was stopped .*cancelled through the API/);
    expect(attempt.responseTime).toBeLessThan(4000);
    await settled();
    expect(openSockets()).toEqual(before);
  });

  it('nothing listens on fails fast with a network error', async () => {
    const gone = await startDnsServer(() => null);
    await gone.close();
    const check = dnsCheck(gone, { query: 'example.test', protocol }, { maxResponseTime: 3000 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: false });
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });
});

describe('garbage bytes', () => {
  it('over UDP are ignored and a valid answer after them is taken', async () => {
    server.handle((query) => [{ raw: GARBAGE }, { ...respond(query, { answers: [A_RECORD] }), delayMs: 30 }]);
    const attempt = await executeDns(dnsCheck(server, { query: 'example.test' }), runContext());
    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.Answer[0]?.data).toBe('127.0.0.1');
  });

  it('over UDP alone end in a timeout that names what was ignored', async () => {
    server.handle(() => ({ raw: GARBAGE }));
    const check = dnsCheck(server, { query: 'example.test' }, { maxResponseTime: 150 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: true });
    expect(attempt.error).toMatch(/ignored 1 reply/);
  });

  it('over TCP are an error at once', async () => {
    server.handle(() => ({ raw: GARBAGE }));
    const check = dnsCheck(server, { query: 'example.test', protocol: 'TCP' }, { maxResponseTime: 3000 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: false });
    expect(attempt.error).toMatch(/invalid reply from 127\.0\.0\.1:\d+ over TCP/);
  });
});

describe('a reply whose last record claims more data than the message holds', () => {
  /** The reply with a TXT answer "hello" whose rdlength says 40 bytes: the record runs past the message. */
  const overrun = (query: dnsPacket.DecodedPacket) => {
    const reply = respond(query, {
      answers: [{ name: 'example.test', type: 'TXT', ttl: 60, data: 'hello' }],
    });
    const raw = dnsPacket.encode(reply.packet as dnsPacket.Packet);
    // RDATA of that TXT record: 1 length byte + 5 bytes; its rdlength is the two bytes before it.
    raw.writeUInt16BE(40, raw.length - 6 - 2);
    return { raw };
  };

  it('over UDP is ignored as undecodable, never read as "hello"', async () => {
    server.handle(overrun);
    const check = dnsCheck(server, { query: 'example.test', recordType: 'TXT' }, { maxResponseTime: 150 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/ignored 1 reply \(undecodable reply \(a record runs past the end/);
    expect(detailOf(attempt).response).toBeNull();
  });

  it('over TCP is an error at once', async () => {
    server.handle(overrun);
    const check = dnsCheck(server, { query: 'example.test', recordType: 'TXT', protocol: 'TCP' });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: false });
    expect(attempt.error).toMatch(/undecodable reply \(a record runs past the end of the \d+-byte message\)/);
  });
});

describe('over UDP, a reply', () => {
  it('with another id is ignored, and the right one after it accepted', async () => {
    server.handle((query) => [
      respond(query, { answers: [{ ...A_RECORD, data: '127.6.6.6' }], id: (query.id ?? 0) ^ 1 }),
      { ...respond(query, { answers: [A_RECORD] }), delayMs: 30 },
    ]);
    const attempt = await executeDns(dnsCheck(server, { query: 'example.test' }), runContext());
    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.Answer).toEqual([
      { name: 'example.test', type: 'A', TTL: 60, data: '127.0.0.1' },
    ]);
  });

  it('with another id only ends in a timeout', async () => {
    server.handle((query) => respond(query, { answers: [A_RECORD], id: (query.id ?? 0) ^ 1 }));
    const check = dnsCheck(server, { query: 'example.test' }, { maxResponseTime: 150 });
    const attempt = await executeDns(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: true });
    expect(attempt.error).toMatch(/ignored 1 reply \(reply id \d+ does not match query id \d+\)/);
  });

  it('to another question is ignored', async () => {
    server.handle((query) => ({
      packet: { ...respond(query).packet, questions: [{ name: 'other.test', type: 'A', class: 'IN' }] },
    }));
    const check = dnsCheck(server, { query: 'example.test' }, { maxResponseTime: 150 });
    const attempt = await executeDns(check, runContext());
    expect(attempt.error).toMatch(/question other\.test A is not example\.test A/);
  });

  it('that is truncated is asked again over TCP', async () => {
    server.handle((query, protocol) =>
      protocol === 'UDP' ? respond(query, { truncated: true }) : respond(query, { answers: [A_RECORD] }),
    );
    const attempt = await executeDns(dnsCheck(server, { query: 'example.test' }), runContext());
    expect(attempt.error).toBeNull();
    expect(server.queries.map((q) => q.protocol)).toEqual(['UDP', 'TCP']);
    const detail = detailOf(attempt);
    expect(detail.response).toMatchObject({ TC: false, Answer: [{ data: '127.0.0.1' }] });
    expect(Object.keys(detail.timingPhases).sort()).toEqual(['tcp', 'total', 'udp']);
  });

  it('that is truncated fails the run when the TCP retry fails, keeping the truncated answer', async () => {
    server.handle((query, protocol) =>
      protocol === 'UDP' ? respond(query, { truncated: true }) : { raw: GARBAGE },
    );
    const attempt = await executeDns(dnsCheck(server, { query: 'example.test' }), runContext());
    expect(attempt.hasErrors).toBe(true);
    expect(attempt.error).toMatch(/^the UDP answer was truncated and the TCP retry failed: invalid reply/);
    expect(detailOf(attempt).response).toMatchObject({ TC: true, Answer: [] });
  });
});

describe('over TCP, a reply', () => {
  it('that arrives a byte at a time is put back together', async () => {
    server.handle((query) => ({ ...respond(query, { answers: [A_RECORD] }), chunkBytes: 1 }));
    const check = dnsCheck(server, { query: 'example.test', protocol: 'TCP' });
    const attempt = await executeDns(check, runContext());
    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.Answer[0]?.data).toBe('127.0.0.1');
  });

  it('cut short by a closed connection is an error', async () => {
    server.handle(() => ({ raw: Buffer.alloc(0) }));
    const check = dnsCheck(server, { query: 'example.test', protocol: 'TCP' });
    const attempt = await executeDns(check, runContext());
    expect(attempt.hasErrors).toBe(true);
    expect(attempt.error).toMatch(/invalid reply/);
  });
});

it('a query name that cannot be sent fails without asking', async () => {
  const check = dnsCheck(server, { query: `${'a'.repeat(64)}.test` });
  const attempt = await executeDns(check, runContext());
  expect(attempt.error).toMatch(/label longer than 63 bytes/);
  expect(server.queries).toEqual([]);
});

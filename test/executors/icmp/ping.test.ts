import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { executeIcmp } from '../../../src/executors/icmp/index.js';
import { icmpCheck, needsRawSockets, rawSockets, runContext } from './fixtures.js';

const result = (attempt: Awaited<ReturnType<typeof executeIcmp>>) => {
  if (!('icmpCheckResult' in attempt.detail)) throw new Error('not an ICMP result');
  return attempt.detail.icmpCheckResult;
};

describe.skipIf(!rawSockets.available)(needsRawSockets('pinging loopback'), () => {
  it('counts every reply from 127.0.0.1, with consistent latency and the reply TTL', async () => {
    const attempt = await executeIcmp(icmpCheck({ hostname: '127.0.0.1', pingCount: 5 }), runContext());
    const { response, requestError, assertions } = result(attempt);

    expect(requestError).toBeNull();
    expect(assertions).toEqual([]);
    expect(attempt).toMatchObject({
      hasErrors: false,
      hasFailures: false,
      isDegraded: false,
      overMaxResponseTime: false,
      networkError: false,
      error: null,
    });
    expect(response).toMatchObject({
      hostname: '127.0.0.1',
      resolvedIp: '127.0.0.1',
      ipFamily: 'IPv4',
      pingCount: 5,
      packetsSent: 5,
      packetsReceived: 5,
      packetSize: 64,
      packetLoss: 0,
    });
    const defaultTtl = Number(readFileSync('/proc/sys/net/ipv4/ip_default_ttl', 'utf8'));
    expect(response?.pingResults.map((p) => p.sequence)).toEqual([1, 2, 3, 4, 5]);
    for (const ping of response?.pingResults ?? []) {
      expect(ping).toMatchObject({ success: true, ttl: defaultTtl });
      expect(ping.rtt).toBeGreaterThan(0);
    }
    const rtts = response?.pingResults.map((p) => p.rtt as number) ?? [];
    const { avg, min, max, stdDev } = response?.latency ?? {};
    expect(min).toBe(Math.min(...rtts));
    expect(max).toBe(Math.max(...rtts));
    expect(avg).toBeCloseTo(rtts.reduce((a, b) => a + b, 0) / rtts.length, 2);
    expect(min as number).toBeLessThanOrEqual(avg as number);
    expect(avg as number).toBeLessThanOrEqual(max as number);
    expect(stdDev).toBeGreaterThanOrEqual(0);
    expect(attempt.responseTime).toBe(avg);
    expect(attempt.stoppedAt.getTime()).toBeGreaterThanOrEqual(attempt.startedAt.getTime());
  });

  it('pings ::1 over IPv6 (an IPv6 literal may be written in brackets)', async () => {
    const check = icmpCheck({ hostname: '[::1]', ipFamily: 'IPv6', pingCount: 3 });
    const attempt = await executeIcmp(check, runContext());
    const { response } = result(attempt);

    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, error: null });
    expect(response).toMatchObject({
      resolvedIp: '::1',
      ipFamily: 'IPv6',
      packetsReceived: 3,
      packetLoss: 0,
    });
    // A raw ICMPv6 socket does not hand over the hop limit of the reply.
    expect(response?.pingResults.every((p) => p.success && p.ttl === null)).toBe(true);
  });

  it('resolves a host name once and reports the address it pinged', async () => {
    const attempt = await executeIcmp(icmpCheck({ hostname: 'localhost', pingCount: 1 }), runContext());
    expect(result(attempt).response).toMatchObject({
      hostname: 'localhost',
      resolvedIp: '127.0.0.1',
      packetsReceived: 1,
    });
  });

  it('stops sending and returns promptly when the run is cancelled', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('the run was cancelled')), 700);
    const attempt = await executeIcmp(
      icmpCheck({ hostname: '127.0.0.1', pingCount: 20 }),
      runContext({ signal: controller.signal }),
    );
    const { response, requestError } = result(attempt);

    expect(Date.now() - started).toBeLessThan(3000);
    expect(attempt.hasErrors).toBe(true);
    expect(requestError).toBe('pinging stopped: the run was cancelled');
    expect(attempt.error).toBe(requestError);
    expect(response?.packetsSent).toBeGreaterThanOrEqual(1);
    expect(response?.packetsSent).toBeLessThan(20);
    expect(response?.pingResults).toHaveLength(response?.packetsSent ?? -1);
  });
});

describe('a target that cannot be pinged', () => {
  it('fails with an error when the name does not resolve', async () => {
    const attempt = await executeIcmp(icmpCheck({ hostname: 'nonexistent.invalid' }), runContext());
    const { response, requestError } = result(attempt);

    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, responseTime: 0 });
    expect(requestError).toBe('could not resolve nonexistent.invalid to an IPv4 address (ENOTFOUND)');
    expect(attempt.error).toBe(requestError);
    expect(response).toMatchObject({ resolvedIp: null, packetsSent: 0, packetsReceived: 0, pingResults: [] });
  });

  it('fails without pinging when an IP address is not of the chosen family', async () => {
    const attempt = await executeIcmp(icmpCheck({ hostname: '127.0.0.1', ipFamily: 'IPv6' }), runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toBe('127.0.0.1 is an IPv4 address but ipFamily is IPv6');
  });

  it('does nothing when the run was stopped before it began', async () => {
    const controller = new AbortController();
    controller.abort(new Error('the run exceeded its execution limit of 30000 ms'));
    const attempt = await executeIcmp(
      icmpCheck({ hostname: '127.0.0.1' }),
      runContext({ signal: controller.signal }),
    );
    expect(attempt.hasErrors).toBe(true);
    expect(attempt.error).toBe('pinging stopped: the run exceeded its execution limit of 30000 ms');
    expect(result(attempt).response?.packetsSent).toBe(0);
  });
});

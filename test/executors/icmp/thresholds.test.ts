import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IcmpCheckResult } from '../../../src/checks/index.js';
import { executeIcmp } from '../../../src/executors/icmp/index.js';
import { judgeIcmp } from '../../../src/executors/icmp/outcome.js';
import type { EchoResult } from '../../../src/executors/icmp/pinger.js';
import { icmpResponse } from '../../../src/executors/icmp/response.js';
import { icmpCheck, needsRawSockets, rawSockets, runContext } from './fixtures.js';
import { createSilentHost, type SilentHost } from './silent-host.js';

const detail = (attempt: Awaited<ReturnType<typeof executeIcmp>>) =>
  (attempt.detail as { icmpCheckResult: IcmpCheckResult }).icmpCheckResult;

describe.skipIf(!rawSockets.available)(
  needsRawSockets('average latency against the response-time thresholds'),
  () => {
    it('is degraded, not failed, above degradedResponseTime', async () => {
      const check = icmpCheck({ hostname: '127.0.0.1', pingCount: 2 }, { degradedResponseTime: 0 });
      const attempt = await executeIcmp(check, runContext());
      expect(attempt).toMatchObject({
        isDegraded: true,
        hasFailures: false,
        overMaxResponseTime: false,
        error: null,
      });
    });

    it('fails above maxResponseTime, saying so', async () => {
      const check = icmpCheck({ hostname: '127.0.0.1', pingCount: 2 }, { maxResponseTime: 0 });
      const attempt = await executeIcmp(check, runContext());
      expect(attempt).toMatchObject({ overMaxResponseTime: true, hasErrors: false, networkError: false });
      expect(attempt.error).toBe(`response time ${attempt.responseTime} ms exceeded maxResponseTime of 0 ms`);
    });

    it('passes within the default thresholds', async () => {
      const attempt = await executeIcmp(icmpCheck({ hostname: '127.0.0.1', pingCount: 2 }), runContext());
      expect(attempt).toMatchObject({ isDegraded: false, hasFailures: false, overMaxResponseTime: false });
    });
  },
);

describe('packet loss against its thresholds', () => {
  /** A response with `received` of `sent` echo requests answered in 1 ms. */
  const responseWith = (sent: number, received: number) =>
    icmpResponse({
      hostname: 'h',
      ipFamily: 'IPv4',
      pingCount: sent,
      resolvedIp: '127.0.0.1',
      echoes: Array.from(
        { length: sent },
        (_, i): EchoResult => ({
          sequence: i + 1,
          rtt: i < received ? 1 : null,
          ttl: i < received ? 64 : null,
          failure: null,
        }),
      ),
    });
  const thresholds = {
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    degradedPacketLossThreshold: 10,
    maxPacketLossThreshold: 20,
  };

  it('counts a threshold as reached at its value', () => {
    expect(judgeIcmp(responseWith(10, 10), [], thresholds)).toMatchObject({
      isDegraded: false,
      hasFailures: false,
    });
    expect(judgeIcmp(responseWith(10, 9), [], thresholds)).toMatchObject({
      isDegraded: true,
      hasFailures: false,
    });
    const failed = judgeIcmp(responseWith(10, 8), [], thresholds);
    expect(failed).toMatchObject({ hasFailures: true, overMaxResponseTime: false });
    expect(failed.error).toBe(
      '20% packet loss to 127.0.0.1 (8 of 10 echo requests answered), at or above the maximum of 20%',
    );
    expect(judgeIcmp(responseWith(11, 10), [], thresholds)).toMatchObject({ isDegraded: false });
  });

  it('reports loss as a percentage of the requests sent', () => {
    expect(responseWith(3, 2)).toMatchObject({ packetsSent: 3, packetsReceived: 2, packetLoss: 33.33 });
  });

  it('fails on total loss even without a maximum, and ignores absent thresholds otherwise', () => {
    const open = { ...thresholds, degradedPacketLossThreshold: null, maxPacketLossThreshold: null };
    expect(judgeIcmp(responseWith(4, 1), [], open)).toMatchObject({ isDegraded: false, hasFailures: false });
    expect(judgeIcmp(responseWith(4, 0), [], open)).toMatchObject({ hasFailures: true });
  });
});

describe.skipIf(!rawSockets.available)(needsRawSockets('a host that never replies'), () => {
  let host: SilentHost | { unavailable: string };
  beforeAll(() => {
    host = createSilentHost();
  });
  afterAll(() => {
    if ('remove' in host) host.remove();
  });

  it('fails with 100% loss and no latency, while a live host pinged at the same time is unaffected', async (ctx) => {
    if ('unavailable' in host) return ctx.skip(host.unavailable);
    const silent = icmpCheck({ hostname: host.address, pingCount: 2 }, { maxPacketLossThreshold: null });
    const live = icmpCheck({ hostname: '127.0.0.1', pingCount: 4 });
    const [lost, answered] = await Promise.all([
      executeIcmp(silent, runContext()),
      executeIcmp(live, runContext()),
    ]);

    expect(lost).toMatchObject({ hasErrors: false, hasFailures: true, networkError: true, responseTime: 0 });
    expect(lost.error).toBe(`100% packet loss to ${host.address} (0 of 2 echo requests answered)`);
    expect(detail(lost).response).toMatchObject({
      packetsSent: 2,
      packetsReceived: 0,
      packetLoss: 100,
      latency: { avg: null, min: null, max: null, stdDev: null },
      pingResults: [
        { sequence: 1, success: false, rtt: null, ttl: null },
        { sequence: 2, success: false, rtt: null, ttl: null },
      ],
    });
    expect(detail(answered).response).toMatchObject({ packetsSent: 4, packetsReceived: 4, packetLoss: 0 });
  });
});

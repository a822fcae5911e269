import { describe, expect, it } from 'vitest';
import type { IcmpCheckResult } from '../../../src/checks/index.js';
import { executeIcmp } from '../../../src/executors/icmp/index.js';
import { assertion, icmpCheck, needsRawSockets, rawSockets, runContext } from './fixtures.js';

async function ping127(assertions: ReturnType<typeof assertion>[]) {
  const attempt = await executeIcmp(
    icmpCheck({ hostname: '127.0.0.2', pingCount: 2, assertions }),
    runContext(),
  );
  const { icmpCheckResult } = attempt.detail as { icmpCheckResult: IcmpCheckResult };
  return { attempt, result: icmpCheckResult };
}

describe.skipIf(!rawSockets.available)(needsRawSockets('ICMP assertions'), () => {
  it('passes LATENCY and JSON_RESPONSE assertions that hold, reporting the values compared', async () => {
    const { attempt, result } = await ping127([
      assertion('LATENCY', 'avg', 'LESS_THAN', '1000'),
      assertion('LATENCY', 'stdDev', 'NOT_NULL', ''),
      assertion('JSON_RESPONSE', '$.packetsReceived', 'EQUALS', '2'),
      assertion('JSON_RESPONSE', '$.pingResults[*].success', 'EQUALS', 'true'),
      assertion('JSON_RESPONSE', '$.resolvedIp', 'EQUALS', '127.0.0.2'),
    ]);

    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, error: null });
    expect(result.assertions.map((a) => a.error)).toEqual([null, null, null, null, null]);
    expect(result.assertions[0]).toMatchObject({
      source: 'LATENCY',
      property: 'avg',
      actual: result.response?.latency.avg,
    });
    expect(result.assertions[2]?.actual).toBe(2);
  });

  it('fails the run on a LATENCY assertion that does not hold, and says which', async () => {
    const { attempt, result } = await ping127([
      assertion('LATENCY', 'min', 'GREATER_THAN', '0'),
      assertion('LATENCY', 'max', 'GREATER_THAN', '5000'),
    ]);

    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: true, networkError: false });
    expect(result.assertions[0]?.error).toBeNull();
    expect(result.assertions[1]?.actual).toBe(result.response?.latency.max);
    expect(result.assertions[1]?.error).toEqual(expect.any(String));
    expect(attempt.error).toBe(result.assertions[1]?.error);
  });

  it('fails the run on a JSON_RESPONSE assertion that does not hold', async () => {
    const { attempt, result } = await ping127([
      assertion('JSON_RESPONSE', '$.packetLoss', 'EQUALS', '0'),
      assertion('JSON_RESPONSE', '$.pingResults.length', 'GREATER_THAN', '2'),
    ]);

    expect(attempt.hasFailures).toBe(true);
    expect(result.assertions[0]?.error).toBeNull();
    expect(result.assertions[1]).toMatchObject({ actual: 2, error: expect.any(String) });
    expect(attempt.error).toBe(result.assertions[1]?.error);
  });
});

import { describe, expect, it } from 'vitest';
import { boundedResult } from '../../src/agent/delivery/bounded-result.js';

const resultWithBody = (body: string) => ({
  hasErrors: false,
  responseTime: 5,
  apiCheckResult: { response: { body, headers: { 'content-type': 'text/plain' } }, jobLog: [] },
});

describe('results bounded to what the control plane takes', () => {
  it('sends a result that fits as it is', () => {
    const result = resultWithBody('x'.repeat(10_000));
    expect(boundedResult(result, 64 * 1024)).toBe(result);
  });

  it('cuts the longest text of a result too large as JSON (control characters are 6 bytes each) and notes it', () => {
    const body = '\u0001'.repeat(100_000); // 100,000 characters, 600,000 bytes of JSON
    const limit = 200_000;
    const bounded = boundedResult(resultWithBody(body), limit);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(limit);
    const kept = (bounded.apiCheckResult as { response: { body: string } }).response.body;
    expect(kept.length).toBeGreaterThan(20_000);
    expect(body.startsWith(kept)).toBe(true);
    expect(bounded.notes).toEqual([
      `apiCheckResult.response.body was cut from 100000 to ${kept.length} characters: the result must fit in 200000 bytes`,
    ]);
  });

  it('never splits a surrogate pair when it cuts', () => {
    const bounded = boundedResult(resultWithBody('😀'.repeat(50_000)), 50_000);
    const kept = (bounded.apiCheckResult as { response: { body: string } }).response.body;
    expect(kept).toMatch(/^(\uD83D\uDE00)*$/);
  });
});

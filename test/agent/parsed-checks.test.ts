import { describe, expect, it } from 'vitest';
import { ParsedChecks } from '../../src/agent/parsed-checks.js';

const check = { name: 'home', checkType: 'URL', request: { url: 'http://127.0.0.1:8080/' } };

describe('checks validated once per version', () => {
  it('validates a check once and hands out the same check for the same stored text', () => {
    const checks = new ParsedChecks();
    const first = checks.parse(structuredClone(check));
    const again = checks.parse(structuredClone(check));
    expect(first.ok).toBe(true);
    expect(again).toBe(first);
  });

  it('validates a changed check anew, and keeps a broken one broken', () => {
    const checks = new ParsedChecks();
    const before = checks.parse(check);
    const changed = checks.parse({ ...check, request: { url: 'http://127.0.0.1:8080/new' } });
    expect(changed).not.toBe(before);
    expect(changed.ok && JSON.stringify(changed.value)).toContain('127.0.0.1:8080/new');
    const broken = checks.parse({ ...check, frequency: 7 });
    expect(broken.ok).toBe(false);
    expect(checks.parse({ ...check, frequency: 7 })).toBe(broken);
  });
});

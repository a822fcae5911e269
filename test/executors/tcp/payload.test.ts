import { describe, expect, it } from 'vitest';
import { VariableSet } from '../../../src/checks/index.js';
import { decodeEscapes, payloadOf } from '../../../src/executors/tcp/payload.js';

describe('TCP payload', () => {
  it('turns \\r, \\n and \\t written as text into control characters', () => {
    expect(decodeEscapes('PING\\r\\n\\tA')).toBe('PING\r\n\tA');
  });

  it('keeps an escaped backslash as one backslash', () => {
    expect(decodeEscapes('C:\\\\temp\\\\n')).toBe('C:\\temp\\n');
  });

  it('sends variable values as they are, escapes and all', () => {
    const variables = new VariableSet([{ key: 'KEY', value: 'a\\nb' }]);
    expect(payloadOf('AUTH {{KEY}}\\r\\n', variables)).toBe('AUTH a\\nb\r\n');
  });
});

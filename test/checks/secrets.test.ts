import { describe, expect, it } from 'vitest';
import { MASK, maskDeep, secretMasker, VariableSet } from '../../src/checks/index.js';

describe('variables', () => {
  it('substitutes {{NAME}} with the first layer that has it, leaving unknown names', () => {
    const vars = new VariableSet(
      [{ key: 'HOST', value: 'cli.test' }],
      [
        { key: 'HOST', value: 'check.test' },
        { key: 'PATH', value: 'p' },
      ],
    );
    expect(vars.substitute('https://{{HOST}}/{{ PATH }}/{{MISSING}}')).toBe('https://cli.test/p/{{MISSING}}');
  });
});

describe('secret masking', () => {
  it('masks secret values, their URL-encoded and JSON-escaped forms, in nested values and keys', () => {
    const vars = new VariableSet([
      { key: 'TOKEN', value: 's3cr3t/+ "x"', secret: true },
      { key: 'PLAIN', value: 'visible' },
    ]);
    const mask = secretMasker(vars.secretValues());
    const masked = maskDeep(
      {
        url: `https://a.test/?t=${encodeURIComponent('s3cr3t/+ "x"')}`,
        body: JSON.stringify({ token: 's3cr3t/+ "x"' }),
        list: ['s3cr3t/+ "x" and visible'],
        's3cr3t/+ "x"': 1,
        n: 5,
      },
      mask,
    );
    const text = JSON.stringify(masked);
    expect(text).not.toContain('s3cr3t');
    expect(masked.list[0]).toBe(`${MASK} and visible`);
    expect(masked.n).toBe(5);
  });

  it('leaves text alone when there are no secrets', () => {
    expect(secretMasker([])('nothing to hide')).toBe('nothing to hide');
  });
});

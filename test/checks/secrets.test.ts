import { describe, expect, it } from 'vitest';
import { MASK, maskDeep, parseCheck, runSecrets, secretMasker, VariableSet } from '../../src/checks/index.js';

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

  it('masks a secret shorter than 6 characters only where a whole text equals it', () => {
    const mask = secretMasker(['0', 'long-enough']);
    expect(maskDeep({ a: '0', b: 'took 100 ms', c: 'x long-enough y' }, mask)).toEqual({
      a: MASK,
      b: 'took 100 ms',
      c: `x ${MASK} y`,
    });
  });

  it('hides locked variables like secret ones, and the Basic credentials of a request in every form', () => {
    const check = parseCheck({
      checkType: 'API',
      name: 'basic',
      environmentVariables: [{ key: 'L', value: 'locked-value', locked: true }],
      request: {
        url: 'http://bob:url%2Fpass@127.0.0.1:9/',
        basicAuth: { username: 'alice', password: 'BasicPassW0rdX' },
        headers: [{ key: 'Cookie', value: 'session=abc123def' }],
      },
    });
    if (!check.ok) throw new Error('invalid check');
    const secrets = runSecrets(check.value, new VariableSet(check.value.environmentVariables));
    expect(secrets).toEqual(
      expect.arrayContaining([
        'locked-value',
        'BasicPassW0rdX',
        Buffer.from('alice:BasicPassW0rdX').toString('base64'),
        Buffer.from('bob:url/pass').toString('base64'),
        'url/pass',
        'session=abc123def',
      ]),
    );
  });

  it('leaves text alone when there are no secrets', () => {
    expect(secretMasker([])('nothing to hide')).toBe('nothing to hide');
  });
});

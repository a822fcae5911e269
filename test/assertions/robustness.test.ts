import { describe, expect, it } from 'vitest';
import { type AssertionSpec, type AssertionSubject, evaluateAssertions } from '../../src/assertions/index.js';
import { assertion, evaluateOne, jsonSubject } from './build.js';

const LIMIT = 10_240;

describe('outcomes', () => {
  it('echo the assertion fields, in order', () => {
    const specs = [
      assertion('STATUS_CODE', 'EQUALS', '200'),
      assertion('HEADERS', 'EQUALS', '7', 'x-id', 'id-(\\d+)'),
      assertion('TEXT_BODY', 'IS_EMPTY'),
    ];
    const outcomes = evaluateAssertions(specs, { statusCode: 200, headers: { 'X-Id': 'id-7' }, text: '' });
    expect(outcomes).toEqual(
      specs.map((spec, index) => ({ ...spec, actual: [200, '7', ''][index], error: null })),
    );
  });

  it('no assertions give no outcomes', () => {
    expect(evaluateAssertions([], { statusCode: 200 })).toEqual([]);
  });
});

describe('actual is cut to 10 KB', () => {
  const long = `${'a'.repeat(LIMIT)}${'b'.repeat(5000)}`;

  it('for text', () => {
    const outcome = evaluateOne(assertion('TEXT_BODY', 'CONTAINS', 'b'), { text: long });
    expect(outcome.error).toBeNull();
    expect(outcome.actual).toBe('a'.repeat(LIMIT));
  });

  it('for a regex capture and a header', () => {
    const fromText = evaluateOne(assertion('TEXT_BODY', 'NOT_EMPTY', '', '', 'x(a+b+)x'), {
      text: `x${long}x`,
    });
    expect(fromText.actual).toBe('a'.repeat(LIMIT));
    const fromHeader = evaluateOne(assertion('HEADERS', 'NOT_EMPTY', '', 'x-big'), {
      headers: { 'x-big': long },
    });
    expect(fromHeader.actual).toBe('a'.repeat(LIMIT));
  });

  it('for a JSON string, and a large JSON value becomes its JSON text, cut', () => {
    const subject = jsonSubject({ value: long, list: Array.from({ length: 5000 }, (_, i) => i) });
    expect(evaluateOne(assertion('JSON_BODY', 'NOT_NULL', '', '$.value'), subject).actual).toBe(
      'a'.repeat(LIMIT),
    );
    const list = evaluateOne(assertion('JSON_BODY', 'NOT_EMPTY', '', '$.list'), subject).actual;
    expect(typeof list).toBe('string');
    expect(list).toHaveLength(LIMIT);
    expect(String(list).startsWith('[0,1,2,')).toBe(true);
  });

  it('values shorter than the limit stay whole', () => {
    const text = 'a'.repeat(LIMIT);
    expect(evaluateOne(assertion('TEXT_BODY', 'NOT_EMPTY'), { text }).actual).toBe(text);
  });
});

describe('never throws', () => {
  const subject: AssertionSubject = { statusCode: 200, text: 'x', json: () => ({ a: 1 }) };

  it('on malformed assertions', () => {
    const malformed = [
      null,
      5,
      'EQUALS',
      {},
      { source: 'STATUS_CODE' },
      { source: 7, comparison: ['EQUALS'] },
    ];
    const outcomes = evaluateAssertions(malformed as unknown as AssertionSpec[], subject);
    expect(outcomes).toHaveLength(malformed.length);
    for (const outcome of outcomes) expect(outcome.error).toEqual(expect.any(String));
    expect(outcomes[4]).toEqual({
      source: 'STATUS_CODE',
      property: '',
      comparison: '',
      target: '',
      regex: null,
      actual: null,
      error: 'unknown comparison ""',
    });
  });

  it('on a non-string target', () => {
    const spec = { ...assertion('STATUS_CODE', 'EQUALS'), target: 200 } as unknown as AssertionSpec;
    expect(evaluateOne(spec, subject)).toMatchObject({ target: '200', error: null });
  });

  it('on a missing list or subject', () => {
    expect(evaluateAssertions(null as unknown as AssertionSpec[], subject)).toEqual([]);
    const outcomes = evaluateAssertions(
      [assertion('STATUS_CODE', 'EQUALS', '200')],
      null as unknown as AssertionSubject,
    );
    expect(outcomes[0]?.error).toBe('source STATUS_CODE is not available for this check');
  });

  it('on a bad regex, in regex or property', () => {
    expect(evaluateOne(assertion('TEXT_BODY', 'EQUALS', 'x', '', '(unclosed'), subject)).toMatchObject({
      actual: null,
      error: 'regex /(unclosed/ is invalid: Unterminated group',
    });
    expect(evaluateOne(assertion('TEXT_BODY', 'EQUALS', 'x', '[z-a]'), subject).error).toMatch(
      /^regex \/\[z-a\]\/ is invalid: /,
    );
    expect(evaluateOne(assertion('HEADERS', 'EQUALS', 'x', 'a', '*'), { headers: { a: 'b' } }).error).toMatch(
      /^regex \/\*\/ is invalid: /,
    );
  });

  it('when the subject misbehaves', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const unserializable = { n: 10n };
    const outcomes = evaluateAssertions(
      [
        assertion('JSON_BODY', 'CONTAINS', 'x'),
        assertion('JSON_RESPONSE', 'NOT_NULL'),
        assertion('HEADERS', 'HAS_KEY', 'a'),
        assertion('STATUS_CODE', 'EQUALS', '200'),
      ],
      {
        statusCode: 200,
        json: () => circular,
        get headers(): Record<string, string> {
          throw new Error('headers are gone');
        },
      },
    );
    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      expect.stringMatching(/^the assertion could not be evaluated: /),
      null,
      'the assertion could not be evaluated: headers are gone',
      null,
    ]);
    expect(outcomes[1]?.actual).toBeNull();
    expect(
      evaluateOne(assertion('JSON_BODY', 'NOT_NULL', '', '$.n'), { json: () => unserializable }).error,
    ).toBe(null);
  });

  it('on JSON nested too deep to write back as text', () => {
    const text = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const subject: AssertionSubject = { text, json: () => JSON.parse(text) };
    const [equals, notEmpty] = evaluateAssertions(
      [assertion('JSON_BODY', 'EQUALS', '[[]]'), assertion('JSON_BODY', 'NOT_EMPTY')],
      subject,
    );
    expect(equals?.error).toMatch(/^the assertion could not be evaluated: /);
    expect(notEmpty).toMatchObject({ actual: null, error: null });
  });
});

describe('large inputs', () => {
  it('a 25 MB body with regexes and text comparisons stays fast', () => {
    const text = `${'lorem ipsum dolor sit amet '.repeat(1_000_000)}token=abc123 end`;
    expect(text.length).toBeGreaterThan(25_000_000);
    const started = performance.now();
    const outcomes = evaluateAssertions(
      [
        assertion('TEXT_BODY', 'EQUALS', 'abc123', '', 'token=(\\w+)'),
        assertion('TEXT_BODY', 'EQUALS', 'abc123', 'token=(\\w+)'),
        assertion('TEXT_BODY', 'IS_NULL', '', '', 'missing=(\\d+)'),
        assertion('TEXT_BODY', 'CONTAINS', 'token=abc123'),
        assertion('TEXT_BODY', 'NOT_CONTAINS', 'absent'),
        assertion('TEXT_BODY', 'LESS_THAN', '5'),
        assertion('TEXT_BODY', 'NOT_EMPTY'),
      ],
      { text },
    );
    const elapsed = performance.now() - started;
    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      null,
      null,
      null,
      null,
      null,
      expect.stringMatching(/but it is not a number$/),
      null,
    ]);
    expect(outcomes[3]?.actual).toHaveLength(LIMIT);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('a large JSON document is parsed once for many assertions', () => {
    const document = { items: Array.from({ length: 100_000 }, (_, id) => ({ id, name: `item ${id}` })) };
    const text = JSON.stringify(document);
    let parses = 0;
    const subject: AssertionSubject = {
      text,
      json: () => {
        parses++;
        return JSON.parse(text);
      },
    };
    const outcomes = evaluateAssertions(
      [
        assertion('JSON_BODY', 'EQUALS', '100000', '$.items.length'),
        assertion('JSON_BODY', 'GREATER_THAN', '-1', '$.items[*].id'),
        assertion('JSON_BODY', 'CONTAINS', 'item 99999'),
        assertion('JSON_BODY', 'NOT_EMPTY'),
      ],
      subject,
    );
    expect(outcomes.map((outcome) => outcome.error)).toEqual([null, null, null, null]);
    expect(parses).toBe(1);
    expect(String(outcomes[1]?.actual)).toHaveLength(LIMIT);
  });
});

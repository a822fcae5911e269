import { describe, expect, it } from 'vitest';
import { assertion, evaluateOne, jsonSubject } from './build.js';

/** [value of the JSON document, comparison, target, holds] */
type Row = [unknown, string, string, boolean];

const rows: Row[] = [
  // EQUALS: numbers as numbers, text exact, booleans and null by JSON text, containers by JSON value
  [200, 'EQUALS', '200', true],
  [200, 'EQUALS', '200.0', true],
  [200, 'EQUALS', '201', false],
  ['200', 'EQUALS', '200', true],
  ['10', 'EQUALS', '10.0', true],
  ['abc', 'EQUALS', 'abc', true],
  ['abc', 'EQUALS', 'ABC', false],
  ['abc', 'EQUALS', 'abc ', false],
  [true, 'EQUALS', 'true', true],
  [false, 'EQUALS', 'true', false],
  [null, 'EQUALS', 'null', true],
  [null, 'EQUALS', '', false],
  [{ a: 1, b: [1, 2] }, 'EQUALS', '{"b": [1, 2], "a": 1}', true],
  [{ a: 1 }, 'EQUALS', '{"a":2}', false],
  [{ a: 1 }, 'EQUALS', 'a', false],
  [[1, 2], 'EQUALS', '[1,2]', true],
  [[1, 2], 'EQUALS', '[2,1]', false],
  [[], 'EQUALS', '[]', true],
  [[], 'EQUALS', 'x', false],
  [['ok', 'ok'], 'EQUALS', 'ok', true],
  [['ok', 'bad'], 'EQUALS', 'ok', false],
  // NOT_EQUALS
  [500, 'NOT_EQUALS', '200', true],
  [200, 'NOT_EQUALS', '200', false],
  ['200', 'NOT_EQUALS', '200.0', false],
  ['a', 'NOT_EQUALS', 'b', true],
  [['a', 'b'], 'NOT_EQUALS', 'c', true],
  [['a', 'c'], 'NOT_EQUALS', 'c', false],
  [{ a: 1 }, 'NOT_EQUALS', '{"a":1}', false],
  [{ a: 1 }, 'NOT_EQUALS', '{"a":2}', true],
  // HAS_KEY / NOT_HAS_KEY
  [{ a: 1 }, 'HAS_KEY', 'a', true],
  [{ a: null }, 'HAS_KEY', 'a', true],
  [{ a: 1 }, 'HAS_KEY', 'b', false],
  [{ a: 1 }, 'HAS_KEY', 'A', false],
  ['abc', 'HAS_KEY', 'a', false],
  [null, 'HAS_KEY', 'a', false],
  [{ a: 1 }, 'NOT_HAS_KEY', 'b', true],
  [{ a: 1 }, 'NOT_HAS_KEY', 'a', false],
  // HAS_VALUE / NOT_HAS_VALUE
  [[1, 2, 3], 'HAS_VALUE', '2', true],
  [['1', '2'], 'HAS_VALUE', '2', true],
  [['a', 'b'], 'HAS_VALUE', 'c', false],
  [{ a: 'x' }, 'HAS_VALUE', 'x', true],
  [{ a: 'x' }, 'HAS_VALUE', 'a', false],
  [{ a: { b: 1 } }, 'HAS_VALUE', '{"b":1}', true],
  [[true], 'HAS_VALUE', 'true', true],
  [[null], 'HAS_VALUE', 'null', true],
  [['abc'], 'HAS_VALUE', 'b', false],
  ['x', 'HAS_VALUE', 'x', true],
  [[1, 2], 'NOT_HAS_VALUE', '3', true],
  [[1, 2], 'NOT_HAS_VALUE', '2', false],
  [{ a: 'x' }, 'NOT_HAS_VALUE', 'x', false],
  // IS_EMPTY / NOT_EMPTY
  ['', 'IS_EMPTY', '', true],
  [[], 'IS_EMPTY', '', true],
  [{}, 'IS_EMPTY', '', true],
  [null, 'IS_EMPTY', '', true],
  [' ', 'IS_EMPTY', '', false],
  [0, 'IS_EMPTY', '', false],
  [false, 'IS_EMPTY', '', false],
  [[0], 'IS_EMPTY', '', false],
  [{ a: 1 }, 'IS_EMPTY', '', false],
  ['a', 'NOT_EMPTY', '', true],
  [[0], 'NOT_EMPTY', '', true],
  [0, 'NOT_EMPTY', '', true],
  ['', 'NOT_EMPTY', '', false],
  [[], 'NOT_EMPTY', '', false],
  [{}, 'NOT_EMPTY', '', false],
  [null, 'NOT_EMPTY', '', false],
  // LESS_THAN / GREATER_THAN: as numbers, never as text
  [5, 'LESS_THAN', '10', true],
  [10, 'LESS_THAN', '10', false],
  ['9', 'LESS_THAN', '10', true],
  ['10', 'GREATER_THAN', '9', true],
  ['10', 'LESS_THAN', '9', false],
  [-1, 'LESS_THAN', '0', true],
  [1.5, 'LESS_THAN', '1.6', true],
  [' 42\n', 'GREATER_THAN', '41', true],
  [10, 'GREATER_THAN', '9', true],
  [9, 'GREATER_THAN', '10', false],
  [10, 'GREATER_THAN', '10', false],
  [[1, 2, 3], 'LESS_THAN', '4', true],
  [[1, 5], 'LESS_THAN', '4', false],
  [[5, 6], 'GREATER_THAN', '4', true],
  // CONTAINS / NOT_CONTAINS
  ['hello world', 'CONTAINS', 'world', true],
  ['hello', 'CONTAINS', 'x', false],
  ['Hello', 'CONTAINS', 'hello', false],
  [['a', 'bc'], 'CONTAINS', 'b', true],
  [['a', 'b'], 'CONTAINS', 'c', false],
  [[1, 2], 'CONTAINS', '2', true],
  [[['x', 'yz']], 'CONTAINS', 'y', true],
  [{ a: 'xyz' }, 'CONTAINS', 'xyz', true],
  [{ a: 'xyz' }, 'CONTAINS', '"a":"xyz"', true],
  [12345, 'CONTAINS', '234', true],
  [true, 'CONTAINS', 'ru', true],
  ['hello', 'NOT_CONTAINS', 'x', true],
  ['hello', 'NOT_CONTAINS', 'ell', false],
  [['a', 'b'], 'NOT_CONTAINS', 'a', false],
  [['a', 'b'], 'NOT_CONTAINS', 'c', true],
  // IS_NULL / NOT_NULL
  [null, 'IS_NULL', '', true],
  [0, 'IS_NULL', '', false],
  ['', 'IS_NULL', '', false],
  ['null', 'IS_NULL', '', false],
  [0, 'NOT_NULL', '', true],
  ['', 'NOT_NULL', '', true],
  [null, 'NOT_NULL', '', false],
];

describe('comparisons on a JSON value', () => {
  it.each(rows)('%j %s %j holds: %s', (value, comparison, target, holds) => {
    const outcome = evaluateOne(
      assertion('JSON_BODY', comparison, target, '$.value'),
      jsonSubject({ value }),
    );
    expect(outcome.actual).toEqual(value);
    if (holds) expect(outcome.error).toBeNull();
    else expect(outcome.error).toMatch(/^expected \$\.value(\[\d+\])? /);
  });

  it('covers every one of the 14 comparisons', () => {
    expect(new Set(rows.map(([, comparison]) => comparison)).size).toBe(14);
  });
});

describe('failure messages', () => {
  it.each([
    [200, 'EQUALS', '201', 'expected $.value 200 to equal 201'],
    ['abc', 'EQUALS', 'abd', 'expected $.value "abc" to equal "abd"'],
    ['200', 'NOT_EQUALS', '200', 'expected $.value "200" not to equal 200'],
    [{ a: 1 }, 'HAS_KEY', 'b', 'expected $.value {"a":1} to have key "b"'],
    [{ a: 1 }, 'NOT_HAS_KEY', 'a', 'expected $.value {"a":1} not to have key "a"'],
    [[1], 'HAS_VALUE', '2', 'expected $.value [1] to have value 2'],
    [[1], 'NOT_HAS_VALUE', '1', 'expected $.value [1] not to have value 1'],
    ['a', 'IS_EMPTY', '', 'expected $.value "a" to be empty'],
    [[], 'NOT_EMPTY', '', 'expected $.value [] not to be empty'],
    [3, 'GREATER_THAN', '5', 'expected $.value 3 to be greater than 5'],
    [[1, 12, 3], 'LESS_THAN', '10', 'expected $.value[1] 12 to be less than 10'],
    ['hello', 'CONTAINS', 'x', 'expected $.value "hello" to contain "x"'],
    ['hello', 'NOT_CONTAINS', 'ell', 'expected $.value "hello" not to contain "ell"'],
    [false, 'IS_NULL', '', 'expected $.value false to be null'],
    [null, 'NOT_NULL', '', 'expected $.value null not to be null'],
  ])('%j %s %j: %s', (value, comparison, target, message) => {
    const outcome = evaluateOne(
      assertion('JSON_BODY', comparison, target, '$.value'),
      jsonSubject({ value }),
    );
    expect(outcome.error).toBe(message);
  });

  it('cuts long values in messages', () => {
    const value = 'x'.repeat(5000);
    const outcome = evaluateOne(assertion('JSON_BODY', 'EQUALS', 'y', '$.value'), jsonSubject({ value }));
    expect(outcome.error?.length).toBeLessThan(300);
    expect(outcome.error).toContain('…');
  });
});

describe('LESS_THAN and GREATER_THAN need numbers', () => {
  it.each([
    ['abc', 'LESS_THAN'],
    [true, 'GREATER_THAN'],
    [null, 'LESS_THAN'],
    [{ a: 1 }, 'GREATER_THAN'],
    ['0x10', 'GREATER_THAN'],
    ['', 'LESS_THAN'],
  ])('%j %s 1 fails: the value is not a number', (value, comparison) => {
    const outcome = evaluateOne(assertion('JSON_BODY', comparison, '1', '$.value'), jsonSubject({ value }));
    expect(outcome.error).toMatch(/^expected \$\.value .*, but it is not a number$/);
  });

  it('a target that is not a number fails the assertion', () => {
    const outcome = evaluateOne(assertion('STATUS_CODE', 'LESS_THAN', 'abc'), { statusCode: 200 });
    expect(outcome.error).toBe('target "abc" is not a number');
  });

  it('an array target with EQUALS compares the whole array, not each element', () => {
    const subject = jsonSubject({ value: ['a', 'b'] });
    expect(evaluateOne(assertion('JSON_BODY', 'EQUALS', '["a","b"]', '$.value'), subject).error).toBeNull();
    expect(evaluateOne(assertion('JSON_BODY', 'NOT_EQUALS', '["a"]', '$.value'), subject).error).toBeNull();
  });
});

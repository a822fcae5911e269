import { expect, it } from 'vitest';
import { jsonPieces } from '../../src/protocol/json-pieces.js';
import { someJsonValue } from '../../src/protocol/json-walk.js';

it('visits every value of a result, objects before what they hold, with its key, and stops when asked', () => {
  const value = { a: [1, { b: 'x' }], c: null };
  const seen: [unknown, string | undefined][] = [];
  const record = (item: unknown, key: string | undefined) => {
    seen.push([item, key]);
    return false;
  };
  expect(someJsonValue(value, record)).toBe(false);
  expect(seen).toEqual([
    [value, undefined],
    [value.a, 'a'],
    [null, 'c'],
    [1, undefined],
    [value.a[1], undefined],
    ['x', 'b'],
  ]);
  let visits = 0;
  const untilOne = (item: unknown) => {
    visits++;
    return item === 1;
  };
  expect(someJsonValue(value, untilOne)).toBe(true);
  expect(visits).toBe(4);
});

it('writes a megabyte string nested in a result as a piece of its own, the pieces joined being its JSON', () => {
  const body = 'b'.repeat(1024 * 1024);
  const upload = {
    runId: 'r',
    result: { apiCheckResult: { response: { body } }, steps: [{ name: 'small' }] },
  };
  const pieces = jsonPieces(upload);
  expect(pieces.join('')).toBe(JSON.stringify(upload));
  expect(pieces).toContain(body);
  expect(jsonPieces({ runId: 'r', steps: ['small'] })).toEqual([
    JSON.stringify({ runId: 'r', steps: ['small'] }),
  ]);
});

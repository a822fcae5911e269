import { describe, expect, it } from 'vitest';
import { type AssertionSubject, evaluateAssertions } from '../../src/assertions/index.js';
import { assertion, evaluateOne, jsonSubject } from './build.js';

const document = {
  name: 'shop',
  open: true,
  closedOn: null,
  items: [
    { id: 1, price: 5, tags: ['new', 'sale'], status: 'ok' },
    { id: 2, price: 8, tags: [], status: 'ok' },
    { id: 3, price: 12, tags: ['old'], status: 'ok' },
  ],
  owner: { name: 'Ada', roles: ['admin'] },
};
const subject = jsonSubject(document);

describe('JSONPath selection', () => {
  it.each([
    ['$.name', 'EQUALS', 'shop', 'shop'],
    ["$['name']", 'EQUALS', 'shop', 'shop'],
    ['$.open', 'EQUALS', 'true', true],
    ['$.closedOn', 'IS_NULL', '', null],
    ['$.owner', 'HAS_KEY', 'roles', document.owner],
    ['$.owner.roles', 'HAS_VALUE', 'admin', ['admin']],
    ['$.items[0].id', 'EQUALS', '1', 1],
    ['$.items[-1:].id', 'EQUALS', '3', 3],
    ['$.items[?(@.price > 10)].id', 'EQUALS', '3', 3],
    ['$.items.length', 'EQUALS', '3', 3],
    ['$.name.length', 'EQUALS', '4', 4],
    ['$.items[1].tags.length', 'EQUALS', '0', 0],
    ['$.items.length', 'GREATER_THAN', '2', 3],
    ['$', 'HAS_KEY', 'items', document],
    ['', 'HAS_KEY', 'items', document],
  ])('%s %s %j', (path, comparison, target, actual) => {
    expect(evaluateOne(assertion('JSON_BODY', comparison, target, path), subject)).toMatchObject({
      actual,
      error: null,
    });
  });

  it('messages name the path', () => {
    expect(evaluateOne(assertion('JSON_BODY', 'GREATER_THAN', '5', '$.items.length'), subject).error).toBe(
      'expected $.items.length 3 to be greater than 5',
    );
    expect(evaluateOne(assertion('JSON_BODY', 'HAS_KEY', 'x'), subject).error).toMatch(
      /^expected JSON body \{"name":"shop",.* to have key "x"$/,
    );
  });

  it.each(['JSON_BODY', 'JSON_ANSWER', 'JSON_RESPONSE'])('%s reads the subject JSON', (source) => {
    expect(evaluateOne(assertion(source, 'EQUALS', 'Ada', '$.owner.name'), subject).error).toBeNull();
  });
});

describe('several matches: the comparison must hold for every one', () => {
  it.each([
    ['$.items[*].price', 'LESS_THAN', '20', null],
    ['$.items[*].price', 'LESS_THAN', '10', "expected $['items'][2]['price'] 12 to be less than 10"],
    ['$.items[*].status', 'EQUALS', 'ok', null],
    ['$.items[*].id', 'NOT_EQUALS', '2', "expected $['items'][1]['id'] 2 not to equal 2"],
    ['$..price', 'GREATER_THAN', '0', null],
    ['$.items[*]', 'HAS_KEY', 'tags', null],
    ['$.items[*].tags', 'NOT_EMPTY', '', "expected $['items'][1]['tags'] [] not to be empty"],
    ['$.items[*].tags.length', 'LESS_THAN', '3', null],
    ['$.items[*].tags', 'CONTAINS', 'e', "expected $['items'][1]['tags'] [] to contain \"e\""],
  ])('%s %s %j', (path, comparison, target, error) => {
    const outcome = evaluateOne(assertion('JSON_BODY', comparison, target, path), subject);
    expect(outcome.error).toBe(error);
    expect(Array.isArray(outcome.actual)).toBe(true);
  });

  it('actual is the array of matched values', () => {
    const outcome = evaluateOne(assertion('JSON_BODY', 'LESS_THAN', '100', '$.items[*].price'), subject);
    expect(outcome.actual).toEqual([5, 8, 12]);
  });

  it('one array value: element-wise comparisons hold for every element', () => {
    const prices = jsonSubject({ prices: [1, 2, 30] });
    expect(evaluateOne(assertion('JSON_BODY', 'LESS_THAN', '50', '$.prices'), prices).error).toBeNull();
    expect(evaluateOne(assertion('JSON_BODY', 'LESS_THAN', '10', '$.prices'), prices).error).toBe(
      'expected $.prices[2] 30 to be less than 10',
    );
  });
});

describe('paths that match nothing', () => {
  it.each([
    ['EQUALS', 'x', 'JSONPath $.missing matched nothing'],
    ['LESS_THAN', '1', 'JSONPath $.missing matched nothing'],
    ['NOT_NULL', '', 'JSONPath $.missing matched nothing'],
    ['HAS_KEY', 'a', 'JSONPath $.missing matched nothing'],
    ['IS_NULL', '', null],
    ['IS_EMPTY', '', null],
    ['NOT_EQUALS', 'x', null],
    ['NOT_HAS_VALUE', 'x', null],
  ])('%s %j', (comparison, target, error) => {
    const outcome = evaluateOne(assertion('JSON_BODY', comparison, target, '$.missing'), subject);
    expect(outcome).toMatchObject({ actual: null, error });
  });

  it('a wildcard with no matches counts as nothing', () => {
    const outcome = evaluateOne(
      assertion('JSON_BODY', 'EQUALS', '1', '$.none[*].id'),
      jsonSubject({ none: [] }),
    );
    expect(outcome).toMatchObject({ actual: null, error: 'JSONPath $.none[*].id matched nothing' });
  });

  it('`.length` of a value that has none matches nothing', () => {
    const outcome = evaluateOne(assertion('JSON_BODY', 'EQUALS', '1', '$.open.length'), subject);
    expect(outcome.error).toBe('JSONPath $.open.length matched nothing');
  });

  it.each([null, 7, 'text'])('below a document that is %j', (value) => {
    const outcome = evaluateOne(assertion('JSON_BODY', 'IS_NULL', '', '$.a.b'), jsonSubject(value));
    expect(outcome).toMatchObject({ actual: null, error: null });
    expect(
      evaluateOne(assertion('JSON_BODY', 'EQUALS', String(value), '$'), jsonSubject(value)).error,
    ).toBeNull();
  });
});

describe('bad JSONPath', () => {
  it.each([
    ['name', 'JSONPath name is invalid: it must start with $'],
    ['$.items[', 'JSONPath $.items[ is invalid: missing ]'],
    ['$.items]', 'JSONPath $.items] is invalid: unexpected ] at position 8'],
    ["$['name", "JSONPath $['name is invalid: unclosed quote '"],
    ['$.items[?(@.price > 1]', 'JSONPath $.items[?(@.price > 1] is invalid: unexpected ] at position 22'],
    ['$.', 'JSONPath $. is invalid: it ends with a dot'],
  ])('%s', (path, error) => {
    expect(evaluateOne(assertion('JSON_BODY', 'NOT_NULL', '', path), subject)).toMatchObject({
      actual: null,
      error,
    });
  });

  it('filter scripts cannot reach the agent', () => {
    const outcome = evaluateOne(
      assertion('JSON_BODY', 'IS_NULL', '', '$.items[?(process.exit(1))]'),
      subject,
    );
    expect(outcome.error).toMatch(/^JSONPath .* is invalid: /);
  });
});

describe('JSON parsing', () => {
  it.each([
    ['JSON_BODY', 'response body is not valid JSON'],
    ['JSON_ANSWER', 'answer is not valid JSON'],
    ['JSON_RESPONSE', 'response is not valid JSON'],
  ])('%s on text that is not JSON', (source, error) => {
    const text = '<html>oops</html>';
    const outcome = evaluateOne(assertion(source, 'IS_NULL', '', '$.a'), {
      text,
      json: () => JSON.parse(text),
    });
    expect(outcome).toMatchObject({ actual: null, error });
  });

  it('parses once per call, however many JSON assertions, and only when asked', () => {
    let parses = 0;
    const text = JSON.stringify(document);
    const counting: AssertionSubject = {
      statusCode: 200,
      text,
      json: () => {
        parses++;
        return JSON.parse(text);
      },
    };
    evaluateAssertions(
      [assertion('STATUS_CODE', 'EQUALS', '200'), assertion('TEXT_BODY', 'CONTAINS', 'shop')],
      counting,
    );
    expect(parses).toBe(0);
    const outcomes = evaluateAssertions(
      [
        assertion('JSON_BODY', 'EQUALS', 'shop', '$.name'),
        assertion('JSON_ANSWER', 'EQUALS', '3', '$.items.length'),
        assertion('JSON_BODY', 'HAS_KEY', 'owner'),
      ],
      counting,
    );
    expect(outcomes.map((outcome) => outcome.error)).toEqual([null, null, null]);
    expect(parses).toBe(1);
  });

  it('invalid JSON is tried once, and other sources still work', () => {
    let parses = 0;
    const outcomes = evaluateAssertions(
      [
        assertion('JSON_BODY', 'NOT_NULL', '', '$.a'),
        assertion('TEXT_BODY', 'CONTAINS', 'not'),
        assertion('JSON_BODY', 'NOT_NULL', '', '$.b'),
      ],
      {
        text: 'not json',
        json: () => {
          parses++;
          return JSON.parse('not json');
        },
      },
    );
    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      'response body is not valid JSON',
      null,
      'response body is not valid JSON',
    ]);
    expect(parses).toBe(1);
  });

  it('a regex on a JSON source picks from the selected value', () => {
    const outcome = evaluateOne(
      assertion('JSON_BODY', 'EQUALS', 'Ada', '$.owner', '"name":"(\\w+)"'),
      subject,
    );
    expect(outcome).toMatchObject({ actual: 'Ada', error: null });
  });
});

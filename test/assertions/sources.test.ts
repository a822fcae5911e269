import { describe, expect, it } from 'vitest';
import type { AssertionSubject } from '../../src/assertions/index.js';
import { assertion, evaluateOne } from './build.js';

describe('STATUS_CODE and RESPONSE_TIME', () => {
  const subject: AssertionSubject = { statusCode: 500, responseTime: 123.4 };

  it.each([
    [assertion('STATUS_CODE', 'EQUALS', '500'), null],
    [assertion('STATUS_CODE', 'EQUALS', '200'), 'expected status code 500 to equal 200'],
    [assertion('STATUS_CODE', 'NOT_EQUALS', '200'), null],
    [assertion('STATUS_CODE', 'LESS_THAN', '400'), 'expected status code 500 to be less than 400'],
    [assertion('STATUS_CODE', 'GREATER_THAN', '499'), null],
    [assertion('RESPONSE_TIME', 'LESS_THAN', '1000'), null],
    [
      assertion('RESPONSE_TIME', 'GREATER_THAN', '200'),
      'expected response time 123.4 to be greater than 200',
    ],
  ])('%j', (spec, error) => {
    const outcome = evaluateOne(spec, subject);
    expect(outcome.error).toBe(error);
    expect(outcome.actual).toBe(spec.source === 'STATUS_CODE' ? 500 : 123.4);
  });
});

describe('HEADERS', () => {
  const subject: AssertionSubject = {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'set-cookie': ['a=1', 'b=2'],
      'X-Request-Id': 'req-4711',
      'x-absent': undefined,
    },
  };

  it.each([
    ['content-type', 'CONTAINS', 'json', null, 'application/json; charset=utf-8'],
    ['CONTENT-TYPE', 'EQUALS', 'application/json; charset=utf-8', null, 'application/json; charset=utf-8'],
    ['Set-Cookie', 'EQUALS', 'a=1, b=2', null, 'a=1, b=2'],
    [
      'content-type',
      'CONTAINS',
      'JSON',
      'expected header content-type "application/json; charset=utf-8" to contain "JSON"',
      'application/json; charset=utf-8',
    ],
    ['x-request-id', 'NOT_EMPTY', '', null, 'req-4711'],
  ])('%s %s %j', (property, comparison, target, error, actual) => {
    const outcome = evaluateOne(assertion('HEADERS', comparison, target, property), subject);
    expect(outcome.error).toBe(error);
    expect(outcome.actual).toBe(actual);
  });

  it('regex picks the first capture group of the value', () => {
    const outcome = evaluateOne(
      assertion('HEADERS', 'EQUALS', '4711', 'X-Request-Id', 'req-(\\d+)'),
      subject,
    );
    expect(outcome).toMatchObject({ actual: '4711', error: null });
  });

  it('regex without a group compares the whole match', () => {
    const outcome = evaluateOne(
      assertion('HEADERS', 'EQUALS', 'charset=utf-8', 'content-type', 'charset=\\S+'),
      subject,
    );
    expect(outcome).toMatchObject({ actual: 'charset=utf-8', error: null });
  });

  it('a regex that does not match the header fails', () => {
    const outcome = evaluateOne(assertion('HEADERS', 'EQUALS', '1', 'x-request-id', 'id=(\\d+)'), subject);
    expect(outcome).toMatchObject({
      actual: null,
      error: 'regex /id=(\\d+)/ did not match header x-request-id',
    });
  });

  it.each([
    ['EQUALS', 'x', 'header X-Missing is missing'],
    ['CONTAINS', 'x', 'header X-Missing is missing'],
    ['NOT_NULL', '', 'header X-Missing is missing'],
    ['NOT_EMPTY', '', 'header X-Missing is missing'],
    ['IS_NULL', '', null],
    ['IS_EMPTY', '', null],
    ['NOT_CONTAINS', 'x', null],
    ['NOT_EQUALS', 'x', null],
  ])('a missing header with %s %j', (comparison, target, error) => {
    const outcome = evaluateOne(assertion('HEADERS', comparison, target, 'X-Missing'), subject);
    expect(outcome).toMatchObject({ actual: null, error });
  });

  it('a header whose value is undefined counts as missing', () => {
    expect(evaluateOne(assertion('HEADERS', 'IS_NULL', '', 'x-absent'), subject).error).toBeNull();
  });

  it.each([
    ['HAS_KEY', 'content-type', null],
    ['HAS_KEY', 'X-REQUEST-ID', null],
    ['HAS_KEY', 'x-other', 'expected headers'],
    ['NOT_HAS_KEY', 'x-other', null],
    ['NOT_HAS_KEY', 'Content-Type', 'expected headers'],
    ['HAS_VALUE', 'req-4711', null],
  ])('without a property, %s %j looks at all headers', (comparison, target, error) => {
    const outcome = evaluateOne(assertion('HEADERS', comparison, target), subject);
    if (error === null) expect(outcome.error).toBeNull();
    else expect(outcome.error).toMatch(/^expected headers \{/);
    expect(outcome.actual).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'set-cookie': 'a=1, b=2',
      'x-request-id': 'req-4711',
    });
  });

  it('joins headers that differ only in the case of their names', () => {
    const outcome = evaluateOne(assertion('HEADERS', 'EQUALS', 'no-cache, no-store', 'cache-control'), {
      headers: { 'Cache-Control': 'no-cache', 'cache-control': 'no-store' },
    });
    expect(outcome.error).toBeNull();
  });

  it('a regex needs a header name', () => {
    const outcome = evaluateOne(assertion('HEADERS', 'EQUALS', 'x', '', '(x)'), subject);
    expect(outcome.error).toBe('a regex on HEADERS needs the header name in property');
  });
});

describe.each(['TEXT_BODY', 'RESPONSE_DATA', 'TEXT_ANSWER'])('%s', (source) => {
  const subject: AssertionSubject = { text: 'status=ok\nitems=12\nversion: 3.2.1' };

  it('without regex or property compares the whole text', () => {
    expect(evaluateOne(assertion(source, 'CONTAINS', 'items=12'), subject)).toMatchObject({
      actual: subject.text,
      error: null,
    });
    expect(evaluateOne(assertion(source, 'EQUALS', subject.text ?? ''), subject).error).toBeNull();
  });

  it.each([
    ['regex', 'items=(\\d+)', 'GREATER_THAN', '9', '12'],
    ['property', 'items=(\\d+)', 'EQUALS', '12', '12'],
    ['regex', 'version: (\\d+)\\.(\\d+)', 'EQUALS', '3', '3'],
    ['regex', 'status=\\w+', 'EQUALS', 'status=ok', 'status=ok'],
    ['regex', 'status=(x)?', 'IS_EMPTY', '', ''],
  ])('a %s %s: %s %j', (field, pattern, comparison, target, actual) => {
    const spec =
      field === 'regex'
        ? assertion(source, comparison, target, '', pattern)
        : assertion(source, comparison, target, pattern);
    expect(evaluateOne(spec, subject)).toMatchObject({ actual, error: null });
  });

  it('regex wins over property', () => {
    const outcome = evaluateOne(assertion(source, 'EQUALS', 'ok', 'items=(\\d+)', 'status=(\\w+)'), subject);
    expect(outcome).toMatchObject({ actual: 'ok', error: null });
  });

  it('a regex that does not match fails, except for comparisons that expect nothing', () => {
    expect(evaluateOne(assertion(source, 'EQUALS', '1', '', 'x(\\d+)'), subject)).toMatchObject({
      actual: null,
      error: 'regex /x(\\d+)/ did not match',
    });
    expect(evaluateOne(assertion(source, 'IS_NULL', '', '', 'x(\\d+)'), subject).error).toBeNull();
  });

  it('messages name the regex and the source', () => {
    const outcome = evaluateOne(assertion(source, 'LESS_THAN', '10', '', 'items=(\\d+)'), subject);
    expect(outcome.error).toMatch(
      /^expected match of \/items=\(\\d\+\)\/ in [a-z ]+ "12" to be less than 10$/,
    );
  });
});

describe('RESPONSE_CODE', () => {
  it.each([
    ['NOERROR', 'EQUALS', 'NOERROR', null],
    ['NOERROR', 'EQUALS', 'noerror', null],
    ['NXDOMAIN', 'NOT_EQUALS', 'noerror', null],
    ['NXDOMAIN', 'NOT_EQUALS', 'nxdomain', 'expected response code "NXDOMAIN" not to equal "nxdomain"'],
    ['NXDOMAIN', 'EQUALS', 'NOERROR', 'expected response code "NXDOMAIN" to equal "NOERROR"'],
    ['SERVFAIL', 'CONTAINS', 'fail', null],
  ])('%s %s %s', (responseCode, comparison, target, error) => {
    const outcome = evaluateOne(assertion('RESPONSE_CODE', comparison, target), { responseCode });
    expect(outcome).toMatchObject({ actual: responseCode, error });
  });
});

describe('LATENCY', () => {
  const subject: AssertionSubject = { latency: { avg: 12.5, min: 10, max: 20, stdDev: null } };

  it.each([
    ['avg', 'LESS_THAN', '100', 12.5, null],
    ['min', 'EQUALS', '10', 10, null],
    ['max', 'GREATER_THAN', '50', 20, 'expected latency max 20 to be greater than 50'],
    ['stdDev', 'IS_NULL', '', null, null],
    [
      'stdDev',
      'LESS_THAN',
      '5',
      null,
      'expected latency stdDev null to be less than 5, but it is not a number',
    ],
  ])('%s %s %j', (property, comparison, target, actual, error) => {
    expect(evaluateOne(assertion('LATENCY', comparison, target, property), subject)).toMatchObject({
      actual,
      error,
    });
  });

  it('an unknown property fails', () => {
    expect(evaluateOne(assertion('LATENCY', 'LESS_THAN', '5', 'median'), subject).error).toBe(
      'LATENCY property must be avg, min, max or stdDev, not "median"',
    );
  });
});

describe('sources the subject does not offer, and unknown names', () => {
  it.each([
    ['STATUS_CODE', 'EQUALS'],
    ['RESPONSE_TIME', 'LESS_THAN'],
    ['HEADERS', 'HAS_KEY'],
    ['TEXT_BODY', 'CONTAINS'],
    ['RESPONSE_DATA', 'CONTAINS'],
    ['TEXT_ANSWER', 'CONTAINS'],
    ['JSON_BODY', 'NOT_NULL'],
    ['JSON_ANSWER', 'NOT_NULL'],
    ['JSON_RESPONSE', 'NOT_NULL'],
    ['RESPONSE_CODE', 'EQUALS'],
    ['LATENCY', 'LESS_THAN'],
  ])('%s is not offered by an empty subject', (source, comparison) => {
    const outcome = evaluateOne(assertion(source, comparison, '1', source === 'LATENCY' ? 'avg' : ''), {});
    expect(outcome).toMatchObject({
      actual: null,
      error: `source ${source} is not available for this check`,
    });
  });

  it.each(['BODY', 'constructor', '__proto__', 'status_code', ''])('unknown source %j', (source) => {
    const outcome = evaluateOne(assertion(source, 'EQUALS', '200'), { statusCode: 200, text: '' });
    expect(outcome.error).toBe(`unknown assertion source ${JSON.stringify(source)}`);
  });

  it.each(['EQUAL', 'equals', 'toString', ''])('unknown comparison %j', (comparison) => {
    const outcome = evaluateOne(assertion('STATUS_CODE', comparison, '200'), { statusCode: 200 });
    expect(outcome.error).toBe(`unknown comparison ${JSON.stringify(comparison)}`);
  });
});

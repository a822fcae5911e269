import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  envSchema,
  httpUrl,
  logLevel,
  oneOf,
  onOff,
  optional,
  parseEnv,
  positiveNumber,
  readableFile,
  required,
  type SameNames,
  url,
  wholeNumber,
  withDefault,
} from '../../src/config/env.js';

const schema = envSchema({
  NAME: required(oneOf(['a', 'b']), 'the name, a or b'),
  COUNT: withDefault(wholeNumber(1, 10), 5),
  RATIO: optional(positiveNumber(1)),
  LEVEL: withDefault(logLevel(), 'INFO'),
  ENABLED: withDefault(onOff(), true),
  TARGET: optional(httpUrl('https://example.test')),
  DATABASE: optional(url(['postgres', 'postgresql'], 'postgres://db/x', { hostOptional: true })),
  FILE: optional(readableFile('file of secrets')),
});

describe('environment settings', () => {
  it('apply defaults when a variable is unset or empty (unset and empty are the same)', () => {
    const expected = { NAME: 'a', COUNT: 5, LEVEL: 'INFO', ENABLED: true };
    expect(parseEnv(schema, { NAME: 'a' })).toEqual({ ok: true, values: expected });
    expect(parseEnv(schema, { NAME: 'a', COUNT: '', LEVEL: '  ', ENABLED: '' })).toEqual({
      ok: true,
      values: expected,
    });
  });

  it('read each value by its rule, in any case and with spaces around it', () => {
    const parsed = parseEnv(schema, {
      NAME: ' B ',
      COUNT: ' 7 ',
      RATIO: '0.5',
      LEVEL: 'warn',
      ENABLED: 'OFF',
      TARGET: ' http://127.0.0.1:8080/x ',
      DATABASE: 'postgresql:///vantage?host=/run/postgresql',
      OTHER: 'ignored',
    });
    expect(parsed).toEqual({
      ok: true,
      values: {
        NAME: 'b',
        COUNT: 7,
        RATIO: 0.5,
        LEVEL: 'WARN',
        ENABLED: false,
        TARGET: 'http://127.0.0.1:8080/x',
        DATABASE: 'postgresql:///vantage?host=/run/postgresql',
      },
    });
  });

  it('refuse a bad value with one line per variable naming it and its rule, never with a default', () => {
    expect(
      parseEnv(schema, {
        COUNT: 'lots',
        RATIO: '2',
        LEVEL: 'TRACE',
        ENABLED: 'maybe',
        TARGET: 'example.test',
        DATABASE: 'mysql://db/x',
        FILE: join(tmpdir(), 'no-such-file'),
      }),
    ).toEqual({
      ok: false,
      problems: [
        'NAME: is required: the name, a or b',
        'COUNT: must be a whole number from 1 to 10',
        'RATIO: must be a number above 0, at most 1',
        'LEVEL: must be one of DEBUG, LOG, INFO, WARN, ERROR',
        'ENABLED: must be on or off',
        'TARGET: must be an http:// or https:// URL like https://example.test',
        'DATABASE: must be a postgres:// or postgresql:// URL like postgres://db/x',
        'FILE: must name a readable file of secrets',
      ],
    });
    expect(parseEnv(schema, { NAME: 'c', COUNT: '11' })).toEqual({
      ok: false,
      problems: ['NAME: must be one of a, b', 'COUNT: must be a whole number from 1 to 10'],
    });
  });

  it('tells at compile time whether a name list is exactly the variables of a schema', () => {
    const names = ['NAME', 'COUNT', 'RATIO', 'LEVEL', 'ENABLED', 'TARGET', 'DATABASE', 'FILE'] as const;
    true satisfies SameNames<typeof schema, typeof names>;
    // @ts-expect-error: FILE is missing from the list
    true satisfies SameNames<
      typeof schema,
      ['NAME', 'COUNT', 'RATIO', 'LEVEL', 'ENABLED', 'TARGET', 'DATABASE']
    >;
    // @ts-expect-error: EXTRA is not a variable of the schema
    true satisfies SameNames<typeof schema, [...typeof names, 'EXTRA']>;
    expect(names).toHaveLength(Object.keys(schema.shape).length);
  });
});

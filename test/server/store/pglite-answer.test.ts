import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/server/store/db.js';

// On PGlite a statement's first run goes through PGlite's own `query`, and its later runs by name through the
// server's reader of PGlite's answers (src/server/store/pglite-answer.ts): both must give the same rows.
describe("PGlite's answers read in place", () => {
  let db: Db;
  beforeEach(async () => {
    db = await openDb({});
  });
  afterEach(async () => {
    await db.close();
  });

  /** The rows of the first run (PGlite's reader) and of the third (the server's, the statement prepared). */
  async function firstAndThird(sql: string, params: unknown[]): Promise<[unknown[], unknown[]]> {
    const first = await db.query(sql, params);
    await db.query(sql, params);
    return [first, await db.query(sql, params)];
  }

  it('makes the rows PGlite makes: types, nulls, arrays, jsonb and the order of the fields', async () => {
    const [first, third] = await firstAndThird(
      `SELECT $1::text AS t, $2::int AS i, $3::bigint AS b, $4::timestamptz AS at, $5::jsonb AS doc,
              $6::text[] AS tags, $7::boolean AS ok, NULL::text AS nothing, 1.5::float8 AS f, $1::text AS t`,
      [
        'ü 😀',
        7,
        '9007199254740993',
        new Date('2026-12-06T20:00:00.000Z'),
        { a: [1, 'x'] },
        ['a', 'b'],
        false,
      ],
    );
    expect(third).toEqual(first);
    expect(Object.keys(third[0] as object)).toEqual(Object.keys(first[0] as object));
    expect(third[0]).toMatchObject({
      t: 'ü 😀',
      i: 7,
      doc: { a: [1, 'x'] },
      tags: ['a', 'b'],
      ok: false,
      nothing: null,
    });
  });

  it('keeps a column named __proto__ as a field of the row, not its prototype', async () => {
    const [first, third] = await firstAndThird('SELECT $1::int AS "__proto__", $2::text AS b', [1, 'x']);
    for (const row of [first[0], third[0]] as object[]) {
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
      expect(Object.keys(row)).toEqual(['__proto__', 'b']);
    }
  });

  it("fails with PGlite's own error, whose code and message name what was refused", async () => {
    await db.exec('CREATE TABLE keys (id text PRIMARY KEY)');
    const insert = 'INSERT INTO keys VALUES ($1)';
    await db.query(insert, ['a']);
    await db.query(insert, ['b']);
    const refused = await db.query(insert, ['a']).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      name: 'error',
      code: '23505',
      message: expect.stringContaining('keys_pkey'),
      detail: 'Key (id)=(a) already exists.',
    });
  });
});

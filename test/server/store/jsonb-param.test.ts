import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/server/store/db.js';
import { jsonbParam, jsonParam } from '../../../src/server/store/rows.js';
import { freshPostgresDatabase, STORES } from '../../support/server.js';

/** What a result's record may hold that a byte-level encoding could get wrong. */
const AWKWARD = {
  ascii: 'ok',
  accents: 'réponse reçue, Größe',
  emoji: 'up 🟢 down 🔴',
  escapes: 'tab\there, newline\nthere, quote " and backslash \\',
  control: '\u0001',
  nested: { list: [1, 2.5, -3, null, true, false], empty: {}, none: [] },
  big: 'x'.repeat(100_000),
};

// Every run's batches (results, runs, sessions) go to the store as binary jsonb (src/server/store/rows.ts).
describe.each(STORES)('a jsonb parameter sent as bytes (%s)', (store) => {
  let db: Db;
  let drop: () => Promise<void> = async () => {};

  beforeEach(async () => {
    if (store === 'postgres') {
      const database = await freshPostgresDatabase();
      db = await openDb({ databaseUrl: database.url });
      drop = database.drop;
    } else {
      db = await openDb({});
    }
  });

  afterEach(async () => {
    await db.close();
    await drop();
  });

  it('reaches the store as the same JSON as its text, any character included', async () => {
    const rows = [
      { id: 'a', record: AWKWARD },
      { id: 'b', record: { only: 'é' } },
    ];
    const read = (param: unknown) =>
      db.query<{ id: string; record: unknown }>(
        'SELECT id, record FROM jsonb_to_recordset($1::jsonb) AS r(id text, record jsonb) ORDER BY id',
        [param],
      );
    // Twice each: on PostgreSQL the second run of a text goes by its prepared statement's name.
    for (let round = 0; round < 2; round++) {
      expect(await read(jsonbParam(rows))).toEqual(rows);
      expect(await read(jsonParam(rows))).toEqual(rows);
    }
  });

  it('is refused as JSON cut short when its bytes are, and the next statement works', async () => {
    const broken = jsonbParam({ a: 1 }).subarray(0, 4);
    await expect(db.query('SELECT $1::jsonb AS j', [broken])).rejects.toThrow(/json/i);
    expect(await db.query('SELECT $1::jsonb AS j', [jsonbParam({ a: 1 })])).toEqual([{ j: { a: 1 } }]);
  });
});

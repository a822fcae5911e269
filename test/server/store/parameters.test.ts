import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.js';
import { SecretValues } from '../../../src/observability/secret-values.js';
import type { Db } from '../../../src/server/store/db.js';
import { jsonbParam, jsonParam } from '../../../src/server/store/rows.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';
import { STORES } from '../../support/server.js';

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

const SECRET = 'variable-value-4f9c2e7a';

/** What the server's logger writes for `log.error({ err }, …)`, as text. */
function loggedError(error: unknown): string {
  let text = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const log = createLogger({ level: 'ERROR', secrets: new SecretValues([]), destination });
  log.error({ err: error }, 'request failed');
  return text;
}

// Every run's batches (results, runs, sessions) go to the store as binary jsonb (src/server/store/rows.ts); a
// failing statement's error is logged whole by the server (`request failed`), every field of it.
describe.each(STORES)("a statement's parameters (%s)", (store) => {
  let db: Db;
  freshStoreForEachTest(store, (opened) => {
    db = opened;
  });

  it('as jsonb bytes reach the store as the same JSON as their text, any character included', async () => {
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

  it('as jsonb bytes cut short are refused as JSON, and the next statement works', async () => {
    const broken = jsonbParam({ a: 1 }).subarray(0, 4);
    await expect(db.query('SELECT $1::jsonb AS j', [broken])).rejects.toThrow(/json/i);
    expect(await db.query('SELECT $1::jsonb AS j', [jsonbParam({ a: 1 })])).toEqual([{ j: { a: 1 } }]);
  });

  it("never reach the error of a statement that fails, which holds the store's reason", async () => {
    // Twice: the second run goes by the statement's prepared name, on each store its own way.
    for (let round = 0; round < 2; round++) {
      const failure = await db
        .query('SELECT $1::text AS a, $2::jsonb AS b, 1 / 0 AS c', [SECRET, jsonbParam({ token: SECRET })])
        .catch((error: unknown) => error);
      const line = loggedError(failure);
      expect(line).toContain('division by zero');
      // PGlite's error also names its statement, whose text holds no values; pg's does not.
      if (store === 'pglite') expect(line).toContain('SELECT $1::text');
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(JSON.stringify([...Buffer.from(SECRET)]).slice(1, -1));
    }
  });
});

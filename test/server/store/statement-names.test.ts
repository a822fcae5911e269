import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/store/db.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';
import { STORES } from '../../support/server.js';

/** The statements the connection running `tx` has prepared. */
async function preparedOn(tx: Db): Promise<string[]> {
  const rows = await tx.query<{ statement: string }>(
    'SELECT statement FROM pg_prepared_statements ORDER BY prepare_time',
  );
  return rows.map((r) => r.statement);
}

// Statements sent again and again are prepared by name (src/server/store/statement-names.ts): on PostgreSQL by
// node-postgres, on PGlite by src/server/store/pglite-statements.ts.
describe.each(STORES)('statements prepared on the store (%s)', (store) => {
  let db: Db;
  // On PostgreSQL, queries awaited one after another share the pool's one connection (it hands back the idle one it
  // has): what one prepares, or `DEALLOCATE ALL` forgets, is seen by the next. PGlite is one session.
  freshStoreForEachTest(store, (opened) => {
    db = opened;
  });

  it('prepares a statement from its second run, once, and never one run only once', async () => {
    const again = 'SELECT $1::int + 1 AS n';
    const once = 'SELECT $1::int + 2 AS n';
    const prepared = await db.transaction(async (tx) => {
      expect(await tx.query(once, [1])).toEqual([{ n: 3 }]);
      for (const n of [1, 2, 3]) expect(await tx.query(again, [n])).toEqual([{ n: n + 1 }]);
      return preparedOn(tx);
    });
    expect(prepared).toEqual([again]);
  });

  it('answers a prepared statement as an unprepared one: values, nulls, types and no rows', async () => {
    await db.exec(
      'CREATE TABLE runs (id text PRIMARY KEY, at timestamptz, tags text[], body jsonb, n bigint, ok boolean)',
    );
    const insert = 'INSERT INTO runs VALUES ($1, $2, $3, $4, $5, $6) RETURNING id';
    const at = new Date('2026-11-28T00:00:00.000Z');
    for (const id of ['a', 'b', 'c']) {
      const body = id === 'c' ? null : { id, nested: [1, 'two'] };
      expect(await db.query(insert, [id, at, ['x', id], body, 2 ** 40, id !== 'b'])).toEqual([{ id }]);
    }
    const read = 'SELECT id, at, tags, body, n, ok FROM runs WHERE id = ANY($1::text[]) ORDER BY id';
    const first = await db.query(read, [['a', 'c']]);
    const second = await db.query(read, [['a', 'c']]);
    expect(second).toEqual(first);
    expect(second).toEqual([
      {
        id: 'a',
        at,
        tags: ['x', 'a'],
        body: { id: 'a', nested: [1, 'two'] },
        n: expect.anything(),
        ok: true,
      },
      { id: 'c', at, tags: ['x', 'c'], body: null, n: expect.anything(), ok: true },
    ]);
    expect(String(second[0]?.n)).toBe(String(2 ** 40));
    expect(await db.query(read, [['none']])).toEqual([]);
    const update = 'UPDATE runs SET ok = NOT ok WHERE id = $1';
    await db.query(update, ['a']);
    expect(await db.query(update, ['a'])).toEqual([]);
  });

  it('answers a prepared statement with long rows and many rows whole: text across the pieces of an answer', async () => {
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY, body text, doc jsonb)');
    // PGlite writes an answer in pieces of a few KB: a row, and a character, may straddle two.
    const long = `${'Grüße, 東京 😀 '.repeat(20_000)}end`;
    const insert = 'INSERT INTO notes VALUES ($1, $2, $3)';
    for (let id = 1; id <= 300; id++) {
      await db.query(insert, [id, id === 7 ? long : `note ${id} ü`, id === 7 ? { long } : { id }]);
    }
    const read = 'SELECT id, body, doc FROM notes WHERE id >= $1 ORDER BY id';
    for (let i = 0; i < 3; i++) {
      const rows = await db.query<{ id: number; body: string; doc: unknown }>(read, [1]);
      expect(rows).toHaveLength(300);
      expect(rows[6]).toEqual({ id: 7, body: long, doc: { long } });
      expect(rows[299]).toEqual({ id: 300, body: 'note 300 ü', doc: { id: 300 } });
    }
  });

  it("fails a prepared statement with the store's error, and the transaction with it", async () => {
    await db.exec('CREATE TABLE keys (id text PRIMARY KEY)');
    const insert = 'INSERT INTO keys VALUES ($1)';
    await db.query(insert, ['a']);
    await db.query(insert, ['b']);
    await expect(db.query(insert, ['a'])).rejects.toMatchObject({ code: '23505' });
    await expect(
      db.transaction(async (tx) => {
        await tx.query(insert, ['c']);
        await tx.query(insert, ['a']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query('SELECT id FROM keys ORDER BY id')).toEqual([{ id: 'a' }, { id: 'b' }]);
    await db.query(insert, ['c']);
    expect(await db.query('SELECT id FROM keys ORDER BY id')).toEqual([
      { id: 'a' },
      { id: 'b' },
      { id: 'c' },
    ]);
  });

  it('answers with the new shape of a table that gained a column under a prepared SELECT *', async () => {
    await db.exec('CREATE TABLE things (a int); INSERT INTO things VALUES (1)');
    const all = 'SELECT * FROM things';
    await db.query(all);
    expect(await db.query(all)).toEqual([{ a: 1 }]);
    // Another replica's migration, say.
    await db.exec('ALTER TABLE things ADD COLUMN b int DEFAULT 2');
    expect(await db.query(all)).toEqual([{ a: 1, b: 2 }]);
    expect(await db.query(all)).toEqual([{ a: 1, b: 2 }]);
  });

  it('goes on unnamed when the server forgets its statements, as behind a pooler in transaction mode', async () => {
    const sql = 'SELECT $1::int + 41 AS n';
    await db.query(sql, [1]);
    await db.query(sql, [1]);
    // A pooler in transaction mode hands a client any server session, which never prepared ours.
    await db.exec('DEALLOCATE ALL');
    expect(await db.query(sql, [1])).toEqual([{ n: 42 }]);
    await db.query(sql, [1]);
    expect(await db.transaction(preparedOn)).toEqual([]);
  });

  it('fails only the transaction that met a forgotten statement: an aborted one cannot try it again', async () => {
    const sql = 'SELECT $1::int + 41 AS n';
    await db.query(sql, [1]);
    await db.query(sql, [1]);
    await db.exec('DEALLOCATE ALL');
    await expect(db.transaction((tx) => tx.query(sql, [1]))).rejects.toThrow(/does not exist/);
    expect(await db.transaction((tx) => tx.query(sql, [1]))).toEqual([{ n: 42 }]);
  });

  it('keeps a statement first prepared in a transaction that rolled back', async () => {
    const sql = 'SELECT $1::int * 2 AS n';
    await db.query(sql, [1]);
    await expect(
      db.transaction(async (tx) => {
        expect(await tx.query(sql, [2])).toEqual([{ n: 4 }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await db.query(sql, [3])).toEqual([{ n: 6 }]);
    expect(await db.transaction((tx) => tx.query(sql, [4]))).toEqual([{ n: 8 }]);
    expect(await db.transaction(preparedOn)).toEqual([sql]);
  });

  it('runs a prepared statement that returns no columns, and one refused at its first preparing', async () => {
    await db.exec('CREATE TABLE marks (id text)');
    const insert = 'INSERT INTO marks VALUES ($1)';
    for (const id of ['a', 'b', 'c']) expect(await db.query(insert, [id])).toEqual([]);
    const broken = 'SELECT nothing_here FROM marks WHERE id = $1';
    await db.query(broken, ['a']).catch(() => {});
    await expect(db.query(broken, ['a'])).rejects.toMatchObject({ code: '42703' });
    expect(await db.query('SELECT count(*)::int AS n FROM marks')).toEqual([{ n: 3 }]);
  });
});

import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PGLITE_CACHE_MB } from './pglite-cache.js';
import { PgliteStatements } from './pglite-statements.js';
import { StatementNames } from './statement-names.js';

/** The store's one interface over PGlite (embedded) and PostgreSQL. SQL is PostgreSQL's; params are $1, $2… */
export interface Db {
  readonly kind: 'pglite' | 'postgres';
  /** The same object for a store and every transaction on it: what this process remembers of one store hangs on it. */
  readonly identity: object;
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs SQL text of several statements, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** A postgres:// URL; when absent the embedded store is used. */
  databaseUrl?: string;
  /** Folder of the embedded store; absent means in memory. */
  dataDir?: string;
  /** PGlite's buffer cache (PostgreSQL's shared_buffers) in MB; PGLITE_CACHE_MB when absent. */
  pgliteCacheMb?: number;
}

export async function openDb(options: DbOptions): Promise<Db> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl)
    : openPglite(options.dataDir, options.pgliteCacheMb);
}

async function openPglite(dataDir?: string, cacheMb = PGLITE_CACHE_MB): Promise<Db> {
  const db = new PGlite(dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${cacheMb}MB`],
  });
  await db.waitReady;
  const identity = {};
  const options = { serializers: bytesAsTheyAre(db) };
  const names = new StatementNames();
  const statements = new PgliteStatements(db, options.serializers);
  /** Sends a statement by its name once it has one; outside a transaction it may be sent again unnamed. */
  const run = async <T>(q: Pick<PGlite, 'query'>, sql: string, params: readonly unknown[] | undefined) => {
    const inTransaction = q !== db;
    const name = names.nameOf(sql);
    if (name !== undefined) {
      try {
        return await statements.run<T>(name, sql, params, inTransaction);
      } catch (error) {
        if (!names.failed(sql, error) || inTransaction) throw Object.assign(error as object, { query: sql });
      }
    }
    return (await q.query<T>(sql, params as unknown[], options)).rows;
  };
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Db => ({
    kind: 'pglite',
    identity,
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      try {
        return await run<T>(q, sql, params);
      } catch (error) {
        throw withoutParameters(error);
      }
    },
    exec: async (sql) => {
      await q.exec(sql);
    },
    transaction: (fn) => (q === db ? db.transaction((tx) => fn(wrap(tx))) : fn(wrap(q))),
    close: async () => {},
  });
  return { ...wrap(db), close: () => db.close() };
}

/**
 * PGlite hangs a failed statement's parameters on its error (`params`, and its options as `queryOptions`), and a
 * logged error prints every field it has: a secret variable's value or a channel's credentials being written would
 * reach the log. pg's errors carry none; PGlite's lose theirs here. The statement's text, which holds no values, stays.
 */
function withoutParameters(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) {
    delete (error as { params?: unknown }).params;
    delete (error as { queryOptions?: unknown }).queryOptions;
  }
  return error;
}

/** PostgreSQL's type oid of jsonb. */
const JSONB_OID = 3802;

/**
 * PGlite turns every parameter into text by its type, and would write a jsonb parameter given as bytes
 * (`jsonbParam`) out as JSON of its numbers: those bytes are handed on as they are, which its bind sends in binary
 * form, as pg sends bytes.
 */
function bytesAsTheyAre(db: PGlite): Record<number, (value: unknown) => string> {
  const text = db.serializers[JSONB_OID] as (value: unknown) => string;
  return {
    [JSONB_OID]: (value) => (value instanceof Uint8Array ? (value as unknown as string) : text(value)),
  };
}

async function openPostgres(databaseUrl: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // A pool error (a server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const names = new StatementNames();
  const identity = {};
  /** Sends a statement by its name once it has one; `pool` may send it again unnamed, a transaction may not. */
  const run = async <T>(on: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) => {
    const values = params as unknown[] | undefined;
    const name = names.nameOf(sql);
    try {
      return (await on.query({ name, text: sql, values })).rows as T[];
    } catch (error) {
      // A transaction is aborted by the error: only a statement of the pool's own can be tried again.
      if (name === undefined || !names.failed(sql, error) || on !== pool) throw error;
      return (await on.query(sql, values)).rows as T[];
    }
  };
  const wrapClient = (client: pg.PoolClient): Db => ({
    kind: 'postgres',
    identity,
    query: <T>(sql: string, params?: readonly unknown[]) => run<T>(client, sql, params),
    exec: async (sql) => {
      await client.query(sql);
    },
    transaction: (fn) => fn(wrapClient(client)),
    close: async () => {},
  });
  return {
    kind: 'postgres',
    identity,
    query: <T>(sql: string, params?: readonly unknown[]) => run<T>(pool, sql, params),
    exec: async (sql) => {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      // A checked-out client has no error listener of the pool's: a connection cut mid-transaction (a failover, a
      // terminated backend) would be an uncaught exception that ends the process. The query in flight fails on
      // its own; the broken client is thrown away instead of going back to the pool.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn(wrapClient(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: Error) => {
          broken ??= rollback;
        });
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

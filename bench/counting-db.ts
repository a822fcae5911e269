import type { Db } from '../src/server/store/db.js';

/** A store that counts the statements sent through it: each query, and BEGIN and COMMIT of each transaction. */
export class CountingDb {
  statements = 0;
  readonly db: Db;

  constructor(inner: Db) {
    this.db = this.wrap(inner);
  }

  private wrap(inner: Db): Db {
    return {
      kind: inner.kind,
      identity: inner.identity,
      query: (sql, params) => {
        this.statements += 1;
        return inner.query(sql, params);
      },
      exec: (sql) => {
        this.statements += 1;
        return inner.exec(sql);
      },
      transaction: (fn) => {
        this.statements += 2;
        return inner.transaction((tx) => fn(this.wrap(tx)));
      },
      close: () => inner.close(),
    };
  }
}

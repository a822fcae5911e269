// Apart from server.ts because it needs vitest's runner: the benchmarks import server.ts outside of it.
import { afterEach, beforeEach } from 'vitest';
import type { Db } from '../../src/server/store/db.js';
import { openFreshStore, type Store } from './server.js';

/**
 * A fresh store of this kind for each test of the calling block: opened before the test and handed to `use`,
 * dropped after it.
 */
export function freshStoreForEachTest(store: Store, use: (db: Db) => void | Promise<void>): void {
  let drop = async () => {};
  beforeEach(async () => {
    const fresh = await openFreshStore(store);
    drop = fresh.drop;
    await use(fresh.db);
  });
  afterEach(() => drop());
}

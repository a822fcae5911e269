import type { Db } from '../store/db.js';

/**
 * What is read once per account while many sessions of few accounts are made (a scheduler tick, a trigger):
 * `get` reads it the first time, then answers from memory.
 */
export class PerAccount<T> {
  private readonly values = new Map<string, T>();

  constructor(private readonly read: (db: Db, accountId: string) => Promise<T>) {}

  async get(db: Db, accountId: string): Promise<T> {
    const known = this.values.get(accountId);
    if (known !== undefined) return known;
    const value = await this.read(db, accountId);
    this.values.set(accountId, value);
    return value;
  }
}

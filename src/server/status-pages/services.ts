import type { Db } from '../store/db.js';
import { ResourceStore } from '../store/resources.js';

/** The services status pages show, kept as resources of the account. */
export const statusPageServices = (db: Db) => new ResourceStore<{ name: string }>(db, 'status-page-service');

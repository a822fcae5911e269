import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { cleanErrorMessage, errorHashOf } from './clean.js';

/** Longest raw message kept as the group's example. */
const MAX_RAW_LENGTH = 4000;

/**
 * Counts one occurrence of an error of a check: the group of its cleaned message is made on first sight and
 * touched afterwards (a new event also brings an archived group back). Returns the group's id.
 */
export async function recordErrorOccurrence(
  db: Db,
  occurrence: { accountId: string; checkId: string; message: string; now: Date },
): Promise<string> {
  const cleaned = cleanErrorMessage(occurrence.message);
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO error_groups (id, account_id, check_id, error_hash, raw_error_message, cleaned_error_message,
                               first_seen, last_seen)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (account_id, check_id, error_hash)
       DO UPDATE SET last_seen = GREATEST(error_groups.last_seen, EXCLUDED.last_seen),
                     archived_until_next_event = false
     RETURNING id`,
    [
      randomUUID(),
      occurrence.accountId,
      occurrence.checkId,
      errorHashOf(cleaned),
      occurrence.message.slice(0, MAX_RAW_LENGTH),
      cleaned,
      occurrence.now,
    ],
  );
  return (row as { id: string }).id;
}

import { z } from 'zod';
import { MASK, MIN_SUBSTRING_SECRET_LENGTH, shortSecretWarning } from '../../checks/index.js';
import type { Db } from '../store/db.js';
import { iso, isoOrNull } from '../store/rows.js';

/** An account's environment variable (Checkly: /v1/variables); `{{KEY}}` in checks takes its value. */
export interface AccountVariable {
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
  created_at: string;
  updated_at: string | null;
}

/** Keys are what `{{KEY}}` placeholders can name (src/checks/variables.ts). */
const variableKeySchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, {
    message: 'must start with a letter or _ and hold only letters, digits, _, . and -',
  });

export const variableFields = {
  key: variableKeySchema,
  value: z.string().max(65_536),
  locked: z.boolean().default(false),
  secret: z.boolean().default(false),
};

export const variableResponseSchema = z.object({
  key: z.string(),
  value: z.string().describe('***** for secret and locked variables'),
  locked: z.boolean(),
  secret: z.boolean(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  warnings: z
    .array(z.string())
    .optional()
    .describe('Present when a secret or locked value is too short to be masked inside other text'),
});

/**
 * What the API shows: secret and locked values never leave the store through it, and a hidden value too short to
 * be masked inside results' text says so.
 */
export function variableResponse(variable: AccountVariable) {
  const hidden = variable.secret || variable.locked;
  const short = hidden && variable.value !== '' && variable.value.length < MIN_SUBSTRING_SECRET_LENGTH;
  return {
    ...variable,
    value: hidden ? MASK : variable.value,
    ...(short ? { warnings: [shortSecretWarning(variable.key)] } : {}),
  };
}

interface Row {
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
  created_at: unknown;
  updated_at: unknown;
}

const fromRow = (row: Row): AccountVariable => ({
  key: row.key,
  value: row.value,
  locked: row.locked,
  secret: row.secret,
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const COLUMNS = 'key, value, locked, secret, created_at, updated_at';

/** Null when the key is taken. */
export async function insertVariable(
  db: Db,
  accountId: string,
  v: Pick<AccountVariable, 'key' | 'value' | 'locked' | 'secret'>,
): Promise<AccountVariable | null> {
  const [row] = await db.query<Row>(
    `INSERT INTO variables (account_id, key, value, locked, secret) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, key) DO NOTHING RETURNING ${COLUMNS}`,
    [accountId, v.key, v.value, v.locked, v.secret],
  );
  return row ? fromRow(row) : null;
}

export async function getVariable(db: Db, accountId: string, key: string): Promise<AccountVariable | null> {
  const [row] = await db.query<Row>(`SELECT ${COLUMNS} FROM variables WHERE account_id = $1 AND key = $2`, [
    accountId,
    key,
  ]);
  return row ? fromRow(row) : null;
}

export async function listVariables(db: Db, accountId: string): Promise<AccountVariable[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM variables WHERE account_id = $1 ORDER BY key`, [
    accountId,
  ]);
  return rows.map(fromRow);
}

export async function updateVariable(
  db: Db,
  accountId: string,
  v: Pick<AccountVariable, 'key' | 'value' | 'locked' | 'secret'>,
): Promise<AccountVariable | null> {
  const [row] = await db.query<Row>(
    `UPDATE variables SET value = $3, locked = $4, secret = $5, updated_at = now()
      WHERE account_id = $1 AND key = $2 RETURNING ${COLUMNS}`,
    [accountId, v.key, v.value, v.locked, v.secret],
  );
  return row ? fromRow(row) : null;
}

export async function deleteVariable(db: Db, accountId: string, key: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM variables WHERE account_id = $1 AND key = $2 RETURNING key', [
    accountId,
    key,
  ]);
  return rows.length > 0;
}

import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';

/** What the API shows of a client certificate: never its key or passphrase. */
export interface ClientCertificate {
  id: string;
  host: string;
  cert: string;
  ca: string | null;
  created_at: string;
}

interface Row {
  id: string;
  host: string;
  cert: string;
  ca: string | null;
  created_at: unknown;
}

const fromRow = (row: Row): ClientCertificate => ({
  id: row.id,
  host: row.host,
  cert: row.cert,
  ca: row.ca,
  created_at: iso(row.created_at),
});

const COLUMNS = 'id, host, cert, ca, created_at';

export async function insertClientCertificate(
  db: Db,
  accountId: string,
  body: { host: string; cert: string; key: string; ca?: string | null; passphrase?: string | null },
): Promise<ClientCertificate> {
  const [row] = await db.query<Row>(
    `INSERT INTO client_certificates (id, account_id, host, cert, private_key, ca, passphrase)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [randomUUID(), accountId, body.host, body.cert, body.key, body.ca ?? null, body.passphrase ?? null],
  );
  return fromRow(row as Row);
}

export async function getClientCertificate(
  db: Db,
  accountId: string,
  id: string,
): Promise<ClientCertificate | null> {
  const [row] = await db.query<Row>(
    `SELECT ${COLUMNS} FROM client_certificates WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return row ? fromRow(row) : null;
}

export async function listClientCertificates(db: Db, accountId: string): Promise<ClientCertificate[]> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM client_certificates WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(fromRow);
}

export async function deleteClientCertificate(db: Db, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM client_certificates WHERE account_id = $1 AND id = $2 RETURNING id',
    [accountId, id],
  );
  return rows.length > 0;
}

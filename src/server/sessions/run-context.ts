import type { Variable } from '../../checks/index.js';
import type { RunPayload } from '../queue/run.js';
import type { Db } from '../store/db.js';

/** What every run of an account inherits: account variables and client certificates. */
export interface AccountRunContext {
  accountVariables: Variable[];
  clientCertificates: RunPayload['clientCertificates'];
}

export async function accountRunContext(db: Db, accountId: string): Promise<AccountRunContext> {
  const variables = await db.query<{ key: string; value: string; secret: boolean; locked: boolean }>(
    'SELECT key, value, secret, locked FROM variables WHERE account_id = $1 ORDER BY key',
    [accountId],
  );
  const certificates = await db.query<{
    host: string;
    cert: string;
    private_key: string;
    ca: string | null;
    passphrase: string | null;
  }>(
    'SELECT host, cert, private_key, ca, passphrase FROM client_certificates WHERE account_id = $1 ORDER BY created_at',
    [accountId],
  );
  return {
    // A locked value is hidden like a secret one: agents mask both in results.
    accountVariables: variables.map((v) => ({ key: v.key, value: v.value, secret: v.secret || v.locked })),
    clientCertificates: certificates.map((c) => ({
      host: c.host,
      cert: c.cert,
      key: c.private_key,
      ca: c.ca,
      passphrase: c.passphrase,
    })),
  };
}

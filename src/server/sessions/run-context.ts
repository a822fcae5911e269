import type { Variable } from '../../checks/index.js';
import type { RunPayload } from '../queue/run.js';
import type { Db } from '../store/db.js';

/** What every run of an account inherits: account variables and client certificates. */
export interface AccountRunContext {
  accountVariables: Variable[];
  clientCertificates: RunPayload['clientCertificates'];
}

/**
 * Both lists in one statement: a claim reads them for each account it schedules. A locked value is hidden like a
 * secret one: agents mask both in results.
 */
const RUN_CONTEXT = `
SELECT
  (SELECT COALESCE(json_agg(json_build_object('key', key, 'value', value, 'secret', secret OR locked) ORDER BY key),
                   '[]'::json)
     FROM variables WHERE account_id = $1) AS variables,
  (SELECT COALESCE(json_agg(json_build_object('host', host, 'cert', cert, 'key', private_key, 'ca', ca,
                                              'passphrase', passphrase) ORDER BY created_at),
                   '[]'::json)
     FROM client_certificates WHERE account_id = $1) AS certificates`;

export async function accountRunContext(db: Db, accountId: string): Promise<AccountRunContext> {
  const [row] = await db.query<{
    variables: Variable[];
    certificates: RunPayload['clientCertificates'];
  }>(RUN_CONTEXT, [accountId]);
  return { accountVariables: row?.variables ?? [], clientCertificates: row?.certificates ?? [] };
}

import type { ValidationProblem } from '../../checks/index.js';
import { unknownAlertChannels } from '../alerts/channels.js';
import { bundleIdOf, getBundle } from '../bundles/store.js';
import type { Db } from '../store/db.js';

/** What a check or group points at that must exist in the same account. */
export interface References {
  groupId?: number | null;
  privateLocations?: readonly string[] | null;
  alertChannelSubscriptions?: readonly { alertChannelId: number }[];
  /** A PLAYWRIGHT check's bundle: `bundle:<id>` must name an uploaded bundle of the account. */
  codeBundlePath?: string;
}

async function bundleProblem(
  db: Db,
  accountId: string,
  path: string | undefined,
): Promise<ValidationProblem[]> {
  const id = bundleIdOf(path);
  if (id === null) return [];
  if (await getBundle(db, accountId, id)) return [];
  return [{ path: 'codeBundlePath', message: `code bundle ${JSON.stringify(id)} does not exist` }];
}

/** One problem per reference to something the account does not have (another account's ids included). */
export async function referenceProblems(
  db: Db,
  accountId: string,
  refs: References,
): Promise<ValidationProblem[]> {
  const problems: ValidationProblem[] = [];
  if (refs.groupId !== undefined && refs.groupId !== null) {
    const [group] = await db.query('SELECT id FROM check_groups WHERE account_id = $1 AND id = $2', [
      accountId,
      refs.groupId,
    ]);
    if (!group) problems.push({ path: 'groupId', message: `check group ${refs.groupId} does not exist` });
  }
  const slugs = refs.privateLocations ?? [];
  if (slugs.length > 0) {
    const rows = await db.query<{ slug_name: string }>(
      'SELECT slug_name FROM private_locations WHERE account_id = $1 AND slug_name = ANY($2::text[])',
      [accountId, [...slugs]],
    );
    const known = new Set(rows.map((r) => r.slug_name));
    slugs.forEach((slug, i) => {
      if (!known.has(slug)) {
        problems.push({
          path: `privateLocations[${i}]`,
          message: `unknown private location ${JSON.stringify(slug)}`,
        });
      }
    });
  }
  const subscriptions = refs.alertChannelSubscriptions ?? [];
  const unknown = new Set(
    await unknownAlertChannels(
      db,
      accountId,
      subscriptions.map((s) => s.alertChannelId),
    ),
  );
  subscriptions.forEach((s, i) => {
    if (unknown.has(s.alertChannelId)) {
      problems.push({
        path: `alertChannelSubscriptions[${i}].alertChannelId`,
        message: `alert channel ${s.alertChannelId} does not exist`,
      });
    }
  });
  problems.push(...(await bundleProblem(db, accountId, refs.codeBundlePath)));
  return problems;
}

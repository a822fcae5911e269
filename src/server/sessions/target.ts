import { z } from 'zod';
import { DomainError, invalid } from '../common/errors.js';
import type { Db } from '../store/db.js';
import { loadChecks } from './checks.js';
import { type EffectiveCheck, effectiveCheck } from './effective.js';

/** Which checks a trigger runs (Checkly's target: check ids, and tag groups). */
export const targetSchema = z
  .strictObject({
    checkId: z.array(z.string().min(1)).max(1000).optional().describe('Only these checks'),
    matchTags: z
      .array(z.array(z.string().min(1)).min(1))
      .max(100)
      .optional()
      .describe('Any of these groups, each a list of tags a check must all carry ("!tag": must not carry)'),
    allowDeactivated: z
      .boolean()
      .optional()
      .describe('Also run deactivated checks that match the tags (checks named by id always run)'),
  })
  .describe('Selects the checks; with none, every activated check');
export type Target = z.infer<typeof targetSchema>;

/** matchTags is an OR of AND-groups; a tag written `!tag` must be absent. */
function matchesTags(tags: readonly string[], matchTags: readonly (readonly string[])[]): boolean {
  return matchTags.some((group) =>
    group.every((tag) => (tag.startsWith('!') ? !tags.includes(tag.slice(1)) : tags.includes(tag))),
  );
}

/**
 * The checks a target selects: named checks (404 listing unknown ids), else every activated check (or every
 * check with allowDeactivated), narrowed by the tag groups. Heartbeat checks are never run by agents and are left
 * out (400 when named). 404 when nothing is left.
 */
export async function selectChecks(
  db: Db,
  accountId: string,
  target: Target = {},
): Promise<EffectiveCheck[]> {
  const ids = target.checkId;
  const stored = await loadChecks(db, {
    accountId,
    ids,
    activatedOnly: ids === undefined && target.allowDeactivated !== true,
  });
  if (ids !== undefined) {
    const found = new Set(stored.map((c) => c.id));
    const missing = [...new Set(ids)].filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new DomainError(
        'not-found',
        `No check with id ${missing.map((id) => JSON.stringify(id)).join(', ')}`,
        {
          checkIds: missing,
        },
      );
    }
    const heartbeats = stored.filter((c) => c.checkType === 'HEARTBEAT').map((c) => c.id);
    if (heartbeats.length > 0) {
      throw invalid('Heartbeat checks are not run by agents and cannot be triggered', {
        errors: heartbeats.map((id) => ({ field: 'target.checkId', message: `${id} is a heartbeat check` })),
      });
    }
  }
  const tagGroups = target.matchTags ?? [];
  const selected = stored
    .filter((c) => c.checkType !== 'HEARTBEAT')
    .filter((c) => tagGroups.length === 0 || matchesTags(c.tags, tagGroups))
    .map(effectiveCheck);
  if (selected.length === 0) {
    throw new DomainError(
      'not-found',
      tagGroups.length > 0
        ? 'No check matches the target: no check carries the tags of any matchTags group'
        : 'No check matches the target: the account has no activated check that agents run',
      { target },
    );
  }
  return selected;
}

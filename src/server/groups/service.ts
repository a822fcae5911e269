import { z } from 'zod';
import { checkGroupSchema } from '../../checks/group.js';
import { problemsOf } from '../../checks/index.js';
import { subscriptionsForNew } from '../alerts/subscriptions.js';
import { syncCheckRows } from '../checks/derived-rows.js';
import { referenceProblems } from '../checks/references.js';
import { checkIdsInGroup } from '../checks/repository.js';
import { conflict, notFound, validationError } from '../common/errors.js';
import { maskVariables, mergeUpdate, restoreMaskedValues } from '../common/merge.js';
import type { Db } from '../store/db.js';
import { deleteTrigger } from '../triggers/store.js';
import {
  deleteGroupRow,
  type GroupDefinition,
  getGroup,
  insertGroup,
  type StoredGroup,
  updateGroup,
} from './repository.js';

/** The body of PUT /v1/check-groups/{id}: group fields, none required; the merged group is validated whole. */
export const groupUpdateBodySchema = z.strictObject(checkGroupSchema.shape).partial();

export const checkGroupResponseSchema = z.object({
  ...checkGroupSchema.shape,
  id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

export function groupResponse(group: StoredGroup) {
  return {
    id: group.id,
    ...group.definition,
    environmentVariables: maskVariables(group.definition.environmentVariables),
    created_at: group.created_at,
    updated_at: group.updated_at,
  };
}

function definitionOf(group: z.infer<typeof checkGroupSchema>): GroupDefinition {
  const { id: _i, created_at: _c, updated_at: _u, ...definition } = group;
  return definition;
}

async function checkReferences(db: Db, accountId: string, group: GroupDefinition): Promise<void> {
  const problems = await referenceProblems(db, accountId, group);
  if (problems.length > 0) throw validationError('body', problems);
}

export async function createGroup(
  db: Db,
  accountId: string,
  body: z.infer<typeof checkGroupSchema>,
  options: { autoAssignAlerts: boolean },
): Promise<StoredGroup> {
  const definition = definitionOf(body);
  await checkReferences(db, accountId, definition);
  return db.transaction(async (tx) => {
    definition.alertChannelSubscriptions = await subscriptionsForNew(
      tx,
      accountId,
      definition.alertChannelSubscriptions,
      options.autoAssignAlerts,
    );
    return insertGroup(tx, accountId, definition);
  });
}

export async function updateGroupFromBody(
  db: Db,
  accountId: string,
  id: number,
  body: Record<string, unknown>,
  now: Date,
): Promise<StoredGroup> {
  return db.transaction(async (tx) => {
    const stored = await getGroup(tx, accountId, id, true);
    if (!stored) throw notFound('Check group', id);
    const merged = mergeUpdate(stored.definition, body);
    merged.environmentVariables = restoreMaskedValues(
      merged.environmentVariables,
      stored.definition.environmentVariables,
    );
    const parsed = checkGroupSchema.safeParse(merged);
    if (!parsed.success) throw validationError('body', problemsOf(parsed.error));
    const definition = definitionOf(parsed.data);
    await checkReferences(tx, accountId, definition);
    const updated = await updateGroup(tx, accountId, id, definition);
    // A deactivated group stops the scheduling of its checks (and the monitoring of its heartbeats).
    if (definition.activated !== stored.definition.activated) {
      await syncCheckRows(tx, accountId, await checkIdsInGroup(tx, accountId, id), now);
    }
    return updated;
  });
}

/** Refuses (409) while checks are in the group: deleting it would silently change how they run. */
export async function deleteGroup(db: Db, accountId: string, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const group = await getGroup(tx, accountId, id, true);
    if (!group) throw notFound('Check group', id);
    const checkIds = await checkIdsInGroup(tx, accountId, id);
    if (checkIds.length > 0) {
      throw conflict(
        `Check group ${id} still has ${checkIds.length} check(s); move or delete them first (set their groupId to null)`,
        { checkIds },
      );
    }
    await deleteGroupRow(tx, accountId, id);
    await deleteTrigger(tx, accountId, { kind: 'group', groupId: id });
  });
}

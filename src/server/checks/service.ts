import { randomUUID } from 'node:crypto';
import {
  CHECK_SCHEMAS,
  type Check,
  type CheckType,
  problemsOf,
  type ValidationProblem,
} from '../../checks/index.js';
import { subscriptionsForNew } from '../alerts/subscriptions.js';
import { invalid, notFound, validationError } from '../common/errors.js';
import { mergeUpdate, restoreMaskedValues } from '../common/merge.js';
import { deleteHeartbeatEvents } from '../heartbeats/events.js';
import { createPingToken, deletePingTokens } from '../heartbeats/tokens.js';
import type { Db } from '../store/db.js';
import { deleteTrigger } from '../triggers/store.js';
import { syncCheckRows } from './derived-rows.js';
import { pathOfKind } from './kinds.js';
import { referenceProblems } from './references.js';
import { deleteCheckRow, getCheck, insertCheck, type StoredCheck, updateCheck } from './repository.js';
import { withoutResponseFields } from './schemas.js';

type Stored = Check & { id: string };

function throwIfAny(problems: ValidationProblem[]): void {
  if (problems.length > 0) throw validationError('body', problems);
}

async function checkReferences(db: Db, accountId: string, check: Check): Promise<void> {
  throwIfAny(await referenceProblems(db, accountId, check));
}

/**
 * Stores a new check from a validated create body: a fresh id, its references checked, its alert subscriptions
 * (autoAssignAlerts), and for a heartbeat check the token of its ping URL.
 */
export async function createCheck(
  db: Db,
  accountId: string,
  body: Record<string, unknown>,
  options: { autoAssignAlerts: boolean; now: Date },
): Promise<StoredCheck> {
  const check = { ...withoutResponseFields(body), id: randomUUID() } as Stored;
  await checkReferences(db, accountId, check);
  return db.transaction(async (tx) => {
    check.alertChannelSubscriptions = await subscriptionsForNew(
      tx,
      accountId,
      check.alertChannelSubscriptions,
      options.autoAssignAlerts,
    );
    const stored = await insertCheck(tx, accountId, check);
    if (check.checkType === 'HEARTBEAT') await createPingToken(tx, accountId, check.id);
    await syncCheckRows(tx, accountId, [check.id], options.now);
    return stored;
  });
}

/**
 * Merges an update body over the stored check and validates the result as a whole (every problem listed).
 * `kind`: the kind the route is for; a check of another kind is refused.
 */
export async function updateCheckFromBody(
  db: Db,
  accountId: string,
  id: string,
  body: Record<string, unknown>,
  now: Date,
  kind?: CheckType,
): Promise<StoredCheck> {
  return db.transaction(async (tx) => {
    const stored = await getCheck(tx, accountId, id, true);
    if (!stored) throw notFound('Check', id);
    if (kind && stored.checkType !== kind) {
      throw invalid(
        `Check ${id} is a ${stored.checkType} check: update it with PUT /v1/checks/${pathOfKind(stored.checkType)}/${id}`,
        {
          checkType: stored.checkType,
        },
      );
    }
    const problems: ValidationProblem[] = [];
    if (body.checkType !== undefined && body.checkType !== stored.checkType) {
      problems.push({ path: 'checkType', message: `cannot change (the check is ${stored.checkType})` });
    }
    const merged = mergeUpdate(
      stored.definition,
      withoutResponseFields({ ...body, checkType: stored.checkType }),
    );
    merged.environmentVariables = restoreMaskedValues(
      merged.environmentVariables,
      stored.definition.environmentVariables,
    );
    merged.id = stored.id;
    merged.checkType = stored.checkType;
    const parsed = CHECK_SCHEMAS[stored.checkType].safeParse(merged);
    if (!parsed.success) problems.push(...problemsOf(parsed.error));
    throwIfAny(problems);
    const check = parsed.data as Stored;
    await checkReferences(tx, accountId, check);
    const updated = await updateCheck(tx, accountId, check);
    await syncCheckRows(tx, accountId, [check.id], now);
    return updated;
  });
}

/** Deletes a check with its trigger and heartbeat data; false when it does not exist. */
export async function deleteCheck(db: Db, accountId: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await deleteCheckRow(tx, accountId, id))) return false;
    await deleteTrigger(tx, accountId, { kind: 'check', checkId: id });
    await deletePingTokens(tx, accountId, id);
    await deleteHeartbeatEvents(tx, accountId, id);
    return true;
  });
}

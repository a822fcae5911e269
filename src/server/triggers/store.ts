import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../store/db.js';
import {
  findResourceAnyAccount,
  nextResourceNumber,
  ResourceStore,
  type StoredResource,
} from '../store/resources.js';

/**
 * A trigger: a secret URL that starts a check (or every check of a group) without an API key. One per check or
 * group; its document is kept under the check's or group's id.
 */
export type TriggerTarget = { kind: 'check'; checkId: string } | { kind: 'group'; groupId: number };

interface TriggerDocument {
  id: number;
  token: string;
}

const KINDS = { check: 'check-trigger', group: 'group-trigger' } as const;

function storeOf(db: Db, target: TriggerTarget) {
  return new ResourceStore<TriggerDocument>(db, KINDS[target.kind]);
}
const keyOf = (target: TriggerTarget) => (target.kind === 'check' ? target.checkId : String(target.groupId));

export const triggerResponseSchema = z.object({
  id: z.number().int(),
  token: z.string(),
  url: z.string(),
  checkId: z.string().optional(),
  groupId: z.number().int().optional(),
  created_at: z.string(),
});

/** The URL that runs the trigger: `{PUBLIC_URL}/checks/{checkId}/trigger/{token}` (Checkly's form). */
function triggerUrl(publicUrl: string, target: TriggerTarget, token: string): string {
  return target.kind === 'check'
    ? `${publicUrl}/checks/${target.checkId}/trigger/${token}`
    : `${publicUrl}/check-groups/${target.groupId}/trigger/${token}`;
}

export function triggerResponse(
  publicUrl: string,
  target: TriggerTarget,
  stored: StoredResource<TriggerDocument>,
) {
  return {
    id: stored.document.id,
    token: stored.document.token,
    url: triggerUrl(publicUrl, target, stored.document.token),
    ...(target.kind === 'check' ? { checkId: target.checkId } : { groupId: target.groupId }),
    created_at: stored.created_at,
  };
}

export async function getTrigger(db: Db, accountId: string, target: TriggerTarget) {
  return storeOf(db, target).get(accountId, keyOf(target));
}

/** The target's trigger, made now if it has none (so a repeated POST returns the same trigger). */
export async function ensureTrigger(db: Db, accountId: string, target: TriggerTarget) {
  const existing = await getTrigger(db, accountId, target);
  if (existing) return existing;
  return storeOf(db, target).create(accountId, keyOf(target), {
    id: await nextResourceNumber(db),
    token: randomBytes(24).toString('base64url'),
  });
}

export async function deleteTrigger(db: Db, accountId: string, target: TriggerTarget): Promise<boolean> {
  return storeOf(db, target).delete(accountId, keyOf(target));
}

/** The trigger with this token, for the route that runs it; null when the token is unknown or revoked. */
export async function findTrigger(
  db: Db,
  target: TriggerTarget,
  token: string,
): Promise<{ accountId: string } | null> {
  const found = await findResourceAnyAccount<TriggerDocument>(db, KINDS[target.kind], keyOf(target));
  return found && found.document.token === token ? { accountId: found.accountId } : null;
}

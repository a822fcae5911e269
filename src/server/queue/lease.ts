import type { CheckType } from '../../checks/index.js';
import { SLOT_CLASSES, type SlotCounts, slotClassOf } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { addMs } from './clock.js';
import { payloadSql, withPayloads } from './payloads.js';
import { RUN_EXPIRY_MS } from './rules.js';
import { LEASED_COLUMNS, type LeasedRun } from './run.js';

/**
 * The most of an agent's free lightweight slots that runs not due yet may take: the rest stay for runs due now (a
 * triggered check, a burst), which would otherwise wait behind them.
 */
const AHEAD_SHARE = 0.5;
const aheadShareOf = (credit: number) => Math.floor(credit * AHEAD_SHARE);

/** Only what the lease's caller reads: on PGlite each column returned costs parsing, a timestamp most. */
const RETURNED = LEASED_COLUMNS.map((column) => `runs.${column}`).join(', ');

/** The engine of a PLAYWRIGHT check that names none (the check model's default). */
const DEFAULT_ENGINE = 'node22';

/** Who asks for runs: an agent of one location of one account, with free slots and the kinds it can run. */
export interface Leaser {
  accountId: string;
  location: string;
  agentId: string;
}

export interface LeaseRequest extends Leaser {
  credits: SlotCounts;
  kinds: readonly CheckType[];
  /** The check-suite engines the leaser has: PLAYWRIGHT runs of other engines stay queued. Null: no filter. */
  engines?: readonly string[] | null;
  now: Date;
  leaseTtlMs: number;
  /**
   * Lightweight runs that start within this many ms are leased too (an agent of protocol version 3 holds them
   * until their start), on at most AHEAD_SHARE of the credit; 0 or absent: only runs due now. Browser-class runs
   * are always leased when due: one waiting on a browser slot would keep a scarce slot from a run due now.
   */
  aheadMs?: number;
}

/**
 * Leases due runs (and with `aheadMs`, lightweight runs about to be), oldest first, at most `credits` of each slot
 * class, in one statement: a `FOR UPDATE SKIP LOCKED` pick per slot class the leaser has credit and kinds for (and
 * one for the runs ahead), and one update of them all. SKIP LOCKED lets any number of leasers (agents, server
 * replicas) pull from one queue without ever getting the same run.
 *
 * A run's start is `not_before`, and `scheduled_at` holds the same instant (enqueueRuns writes both, nothing changes
 * either); the picks bound `scheduled_at`, the column of the `runs_lease_order` index, so that the scan starts and
 * stops at the runs they want. Bounded on `not_before`, the pick of runs ahead read every queued run older than now
 * first (tens of milliseconds a lease with a backlog of thousands), and the pick of due runs read every run queued
 * ahead when none was due.
 */
export async function leaseRuns(db: Db, request: LeaseRequest): Promise<LeasedRun[]> {
  // $1 account, $2 location, $3 now, $4 agent, $5 lease expiry, $6 engines; then kinds and limit of each class.
  const params: unknown[] = [
    request.accountId,
    request.location,
    request.now,
    request.agentId,
    addMs(request.now, request.leaseTtlMs),
    request.engines ? [...request.engines] : null,
  ];
  const param = (value: unknown) => `$${params.push(value)}`;
  const picks: { name: string; sql: string }[] = [];
  const pick = (name: string, slotClass: string, kinds: string, due: string, limit: string) =>
    picks.push({
      name,
      sql: `${name} AS (
         SELECT id FROM runs
          WHERE account_id = $1 AND location = $2 AND status = 'queued' AND slot_class = '${slotClass}'
            AND check_type = ANY(${kinds}::text[]) AND ${due} AND expires_at > $3
            AND ($6::text[] IS NULL OR check_type <> 'PLAYWRIGHT'
                 OR COALESCE(${payloadSql('runs')}->'check'->>'engine', '${DEFAULT_ENGINE}') = ANY($6::text[]))
          ORDER BY scheduled_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)`,
    });
  for (const slotClass of SLOT_CLASSES) {
    const limit = request.credits[slotClass];
    const kinds = request.kinds.filter((kind) => slotClassOf(kind) === slotClass);
    if (limit <= 0 || kinds.length === 0) continue;
    const [kindsAt, limitAt] = [param(kinds), param(limit)];
    pick(slotClass, slotClass, kindsAt, 'scheduled_at <= $3', limitAt);
    const aheadMs = slotClass === 'light' ? (request.aheadMs ?? 0) : 0;
    if (aheadMs <= 0) continue;
    // Runs not due yet take what the due ones left, and at most a share of it.
    const horizon = param(addMs(request.now, aheadMs));
    const share = param(aheadShareOf(limit));
    const left = `LEAST(${share}, ${limitAt} - (SELECT count(*) FROM ${slotClass}))`;
    pick(`${slotClass}_ahead`, slotClass, kindsAt, `scheduled_at > $3 AND scheduled_at <= ${horizon}`, left);
  }
  if (picks.length === 0) return [];
  const picked = picks.map(({ name }) => `SELECT id FROM ${name}`).join(' UNION ALL ');
  const rows = await db.query<LeasedRun>(
    `WITH ${picks.map(({ sql }) => sql).join(',\n       ')}
       UPDATE runs SET status = 'leased', agent_id = $4, lease_expires_at = $5, leases = runs.leases + 1
         FROM (${picked}) picked WHERE runs.id = picked.id
       RETURNING ${RETURNED}`,
    params,
  );
  return (await withPayloads(db, rows)).sort((a, b) => a.scheduled_at.getTime() - b.scheduled_at.getTime());
}

/**
 * Until when (ms) a lease with `aheadMs` left no lightweight run that was queued before it: its horizon when it
 * took fewer runs than it could, else just before the start of the last run it took (runs are leased in order of
 * their start, a run's `scheduled_at` being its `not_before`).
 */
export function leaseReach(request: LeaseRequest, runs: readonly LeasedRun[]): number {
  const now = request.now.getTime();
  const light = runs.filter((run) => slotClassOf(run.check_type) === 'light');
  const limit = request.credits.light;
  const due = light.filter((run) => run.not_before.getTime() <= now).length;
  const aheadLimit = Math.min(aheadShareOf(limit), limit - due);
  const last = light.at(-1);
  if (due < limit && light.length - due < aheadLimit) return now + (request.aheadMs ?? 0);
  return last ? last.not_before.getTime() - 1 : now;
}

/**
 * The ids of the runs matching `where`, locked in id order, as every statement that locks many runs does
 * (lockRunsCounted in sessions/store.ts): an update of a list of runs in no order (a heartbeat naming hundreds of
 * runs) deadlocked with the recording of a batch of their results, and the failed heartbeat closed the agent's
 * connection.
 */
function inIdOrder(where: string): string {
  return `SELECT id FROM runs WHERE ${where} ORDER BY id FOR UPDATE`;
}

/** Extends the leases of runs an agent says it is running (heartbeat); returns the ids renewed. */
export async function renewLeases(
  db: Db,
  leaser: Leaser,
  runIds: readonly string[],
  now: Date,
  leaseTtlMs: number,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `UPDATE runs SET lease_expires_at = $5
      WHERE id IN (${inIdOrder(`id = ANY($1::text[]) AND account_id = $2 AND location = $3 AND agent_id = $4
                                 AND status = 'leased'`)})
      RETURNING id`,
    [runIds, leaser.accountId, leaser.location, leaser.agentId, addMs(now, leaseTtlMs)],
  );
  return rows.map((r) => r.id);
}

/**
 * Takes back runs an agent still executes from an earlier connection (`hello.running`): their leases carry on,
 * and a run that went back to the queue meanwhile returns to this agent instead of running twice.
 */
export async function adoptRuns(
  db: Db,
  leaser: Leaser,
  runIds: readonly string[],
  now: Date,
  leaseTtlMs: number,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `UPDATE runs SET status = 'leased', agent_id = $4, lease_expires_at = $5
      WHERE id IN (${inIdOrder(`id = ANY($1::text[]) AND account_id = $2 AND location = $3
                                 AND (status = 'queued' OR (status = 'leased' AND agent_id = $4))`)})
      RETURNING id`,
    [runIds, leaser.accountId, leaser.location, leaser.agentId, addMs(now, leaseTtlMs)],
  );
  return rows.map((r) => r.id);
}

/**
 * Hands runs back to the queue at once (an agent shutting down releases what it did not start, or a run could not
 * be sent). Not a lost lease; the run gets a fresh window before it expires.
 */
export async function releaseRuns(
  db: Db,
  leaser: Leaser,
  runIds: readonly string[],
  now: Date,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `UPDATE runs SET status = 'queued', agent_id = NULL, lease_expires_at = NULL,
            expires_at = GREATEST(expires_at, $5)
      WHERE id IN (${inIdOrder(`id = ANY($1::text[]) AND account_id = $2 AND location = $3 AND agent_id = $4
                                 AND status = 'leased' AND cancel_requested_at IS NULL`)})
      RETURNING id`,
    [runIds, leaser.accountId, leaser.location, leaser.agentId, addMs(now, RUN_EXPIRY_MS)],
  );
  return rows.map((r) => r.id);
}

/**
 * Puts back in the queue, at once, the runs leased to agents that connected with a key just revoked: those agents
 * can no longer report them (their results are refused with 401), so another agent of the location runs them now
 * rather than after three lost leases. Returns how many.
 */
export async function requeueRunsOfKey(
  db: Db,
  key: { accountId: string; location: string; keyId: string },
  now: Date,
): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE runs SET status = 'queued', agent_id = NULL, lease_expires_at = NULL,
            expires_at = GREATEST(expires_at, $4)
      WHERE account_id = $1 AND location = $2 AND status = 'leased' AND cancel_requested_at IS NULL
        AND agent_id IN (SELECT agent_id FROM agents WHERE account_id = $1 AND key_id = $3)
      RETURNING id`,
    [key.accountId, key.location, key.keyId, addMs(now, RUN_EXPIRY_MS)],
  );
  return rows.length;
}

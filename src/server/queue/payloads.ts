import { createHash } from 'node:crypto';
import type { Db } from '../store/db.js';
import { jsonParam } from '../store/rows.js';
import type { RunPayload, RunRow } from './run.js';

/**
 * A run's payload is kept once per check and day in `run_payloads`, not in each run's row: a check every 10 s makes
 * 8,640 runs a day with the same payload, and each run's row is written three times (queued, leased, done). The
 * key is the day of the run's start and a hash of the payload's JSON, so a changed check makes a new key, and
 * retention removes a day's payloads whole once the day's runs are gone (`payloadKeysBefore`).
 */
export function payloadKeyOf(json: string, dueAt: Date): string {
  const digest = createHash('sha256').update(json).digest('base64url').slice(0, 32);
  return `${dayOf(dueAt)}:${digest}`;
}

/** The first key of `day`'s payloads: every key of the days before it sorts below it. */
export function payloadKeysBefore(day: Date): string {
  return dayOf(day);
}

function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** At most this many payloads are held in memory per store (about 1 KB of JSON each, parsed). */
const HELD_PAYLOADS = 10_000;

/**
 * What this process knows of one store's payloads. `held`: payloads by key, parsed, least recently used first, as
 * this process made them or read them: a key's payload never changes, so a copy never goes stale (a run that names
 * a key exists only if the payload's row committed with it or before it); a run's payload is read from here, and
 * from the store only when missing. `stored`: the keys of the latest day that the store refused as already there, whose payloads
 * a claim need not send; never the keys this process inserted itself, since that transaction may still roll back.
 */
class StorePayloads {
  private readonly held = new Map<string, RunPayload>();
  private day = '';
  private readonly stored = new Set<string>();

  get(key: string): RunPayload | undefined {
    const payload = this.held.get(key);
    if (payload !== undefined) {
      this.held.delete(key);
      this.held.set(key, payload);
    }
    return payload;
  }

  hold(key: string, payload: RunPayload): void {
    this.held.delete(key);
    this.held.set(key, payload);
    if (this.held.size > HELD_PAYLOADS) this.held.delete(this.held.keys().next().value as string);
  }

  isStored(key: string): boolean {
    return key.startsWith(this.day) && this.stored.has(key);
  }

  noteStored(key: string): void {
    const day = key.slice(0, 10);
    if (day < this.day) return;
    if (day > this.day) {
      this.day = day;
      this.stored.clear();
    }
    this.stored.add(key);
  }
}

const byStore = new WeakMap<object, StorePayloads>();

function payloadsOf(db: Db): StorePayloads {
  let known = byStore.get(db.identity);
  if (!known) {
    known = new StorePayloads();
    byStore.set(db.identity, known);
  }
  return known;
}

/** A payload about to be stored: its JSON, and the object it was made from. */
export interface NewPayload {
  json: string;
  payload: RunPayload;
}

/**
 * Stores the payloads of these keys that the store may not hold yet, in one statement (none when all are known),
 * and holds them in memory for the runs' lease.
 */
export async function storePayloads(tx: Db, payloads: ReadonlyMap<string, NewPayload>): Promise<void> {
  const known = payloadsOf(tx);
  for (const [key, { payload }] of payloads) known.hold(key, payload);
  const wanted = [...payloads].filter(([key]) => !known.isStored(key));
  if (wanted.length === 0) return;
  const inserted = await tx.query<{ key: string }>(
    `INSERT INTO run_payloads (key, payload)
     SELECT key, payload::jsonb FROM unnest($1::text[], $2::text[]) AS p(key, payload)
     ON CONFLICT (key) DO NOTHING RETURNING key`,
    [wanted.map(([key]) => key), wanted.map(([, { json }]) => json)],
  );
  const fresh = new Set(inserted.map((row) => row.key));
  for (const [key] of wanted) if (!fresh.has(key)) known.noteStored(key);
}

/**
 * The SQL of a run's payload, for a run row selected as `alias`, where a statement must look into it: its own
 * (runs made before payloads were kept apart) or its key's.
 */
export function payloadSql(alias: string): string {
  return `COALESCE(${alias}.payload, (SELECT rp.payload FROM run_payloads rp WHERE rp.key = ${alias}.payload_key))`;
}

/** What of a run's row finds its payload. */
type PayloadOwner = Pick<RunRow, 'payload' | 'payload_key' | 'check_id' | 'check_type'>;

/**
 * Run rows as read from `runs` (`payload` null unless the run was made before payloads were kept apart) with their
 * payloads in place: from memory, and those missing from the store in one statement.
 */
export async function withPayloads<T extends PayloadOwner>(db: Db, rows: T[]): Promise<T[]> {
  const known = payloadsOf(db);
  const missing = new Set<string>();
  for (const row of rows) {
    if (row.payload === null && row.payload_key !== null && known.get(row.payload_key) === undefined) {
      missing.add(row.payload_key);
    }
  }
  if (missing.size > 0) {
    const found = await db.query<{ key: string; payload: RunPayload }>(
      'SELECT key, payload FROM run_payloads WHERE key = ANY($1::text[])',
      [[...missing]],
    );
    for (const { key, payload } of found) known.hold(key, payload);
  }
  return rows.map((row) => {
    if (row.payload !== null || row.payload_key === null) return row;
    return { ...row, payload: known.get(row.payload_key) ?? standInPayload(row) };
  });
}

/**
 * The payload of a run whose payload retention removed: a run still queued or leased days after it was due (the
 * control plane was down longer than the retention). No agent gets such a run (it expired long ago); the reaper
 * ends it, and its record needs only what the run's row says.
 */
function standInPayload(row: PayloadOwner): RunPayload {
  return {
    runSource: 'SCHEDULER',
    check: { id: row.check_id, checkType: row.check_type },
    inheritedVariables: [],
    clientCertificates: [],
    retryLocations: [],
  };
}

/** The JSON of each payload once, by key, for runs about to be queued. */
export function payloadsByKey(runs: readonly { payload: RunPayload; dueAt: Date }[]): {
  keys: string[];
  payloads: Map<string, NewPayload>;
} {
  const payloads = new Map<string, NewPayload>();
  const texts = new Map<RunPayload, string>();
  const keys = runs.map((run) => {
    let json = texts.get(run.payload);
    if (json === undefined) {
      json = jsonParam(run.payload);
      texts.set(run.payload, json);
    }
    const key = payloadKeyOf(json, run.dueAt);
    payloads.set(key, { json, payload: run.payload });
    return key;
  });
  return { keys, payloads };
}

import { randomUUID } from 'node:crypto';
import { notFound, validationError } from '../common/errors.js';
import type { Db } from '../store/db.js';
import { iso, isoOrNull } from '../store/rows.js';
import type {
  Incident,
  IncidentCreateBody,
  IncidentProgressBody,
  IncidentSeverity,
  IncidentStatus,
} from './incident-schema.js';
import { statusPageServices } from './services.js';
import { enqueueIncidentMails } from './subscriptions.js';

interface IncidentRow {
  id: string;
  account_id: string;
  service_id: string;
  name: string;
  description: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  check_id: string | null;
  notify_subscribers: boolean;
  created_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
}

interface UpdateRow {
  id: string;
  incident_id: string;
  status: IncidentStatus;
  description: string;
  notify_subscribers: boolean;
  created_at: Date;
}

/** The API's shape of incidents, with their updates, in the order given. */
async function withUpdates(db: Db, rows: readonly IncidentRow[]): Promise<Incident[]> {
  if (rows.length === 0) return [];
  const updates = await db.query<UpdateRow>(
    'SELECT * FROM incident_updates WHERE incident_id = ANY($1::text[]) ORDER BY created_at, seq',
    [rows.map((r) => r.id)],
  );
  const byIncident = new Map<string, UpdateRow[]>();
  for (const u of updates) byIncident.set(u.incident_id, [...(byIncident.get(u.incident_id) ?? []), u]);
  return rows.map((r) => ({
    id: r.id,
    serviceId: r.service_id,
    name: r.name,
    description: r.description,
    severity: r.severity,
    status: r.status,
    checkId: r.check_id,
    notifySubscribers: r.notify_subscribers,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    resolved_at: isoOrNull(r.resolved_at),
    updates: (byIncident.get(r.id) ?? []).map((u) => ({
      id: u.id,
      status: u.status,
      description: u.description,
      notifySubscribers: u.notify_subscribers,
      created_at: iso(u.created_at),
    })),
  }));
}

/** Adds an update; one that notifies subscribers queues their mail in the same transaction. */
async function insertUpdate(
  tx: Db,
  incident: { accountId: string; id: string; serviceId: string },
  update: IncidentProgressBody,
  now: Date,
): Promise<void> {
  const updateId = randomUUID();
  await tx.query(
    `INSERT INTO incident_updates (id, incident_id, status, description, notify_subscribers, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [updateId, incident.id, update.status, update.description, update.notifySubscribers, now],
  );
  if (update.notifySubscribers) {
    await enqueueIncidentMails(
      tx,
      incident.accountId,
      { id: incident.id, serviceId: incident.serviceId, updateId },
      now,
    );
  }
}

/** Opens an incident on a service of the account, its description its first update; 400 for an unknown service. */
export async function createIncident(
  tx: Db,
  accountId: string,
  body: IncidentCreateBody,
  now: Date,
  checkId: string | null = null,
): Promise<Incident> {
  if (!(await statusPageServices(tx).get(accountId, body.serviceId))) {
    throw validationError('body', [
      { path: 'serviceId', message: `status-page service ${body.serviceId} does not exist` },
    ]);
  }
  const id = randomUUID();
  await tx.query(
    `INSERT INTO incidents (id, account_id, service_id, name, description, severity, status, check_id,
                            notify_subscribers, created_at, updated_at, resolved_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)`,
    [
      id,
      accountId,
      body.serviceId,
      body.name,
      body.description,
      body.severity,
      body.status,
      checkId,
      body.notifySubscribers,
      now,
      body.status === 'RESOLVED' ? now : null,
    ],
  );
  await insertUpdate(tx, { accountId, id, serviceId: body.serviceId }, body, now);
  return (await getIncident(tx, accountId, id)) as Incident;
}

export async function getIncident(db: Db, accountId: string, id: string): Promise<Incident | null> {
  const rows = await db.query<IncidentRow>('SELECT * FROM incidents WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (await withUpdates(db, rows))[0] ?? null;
}

/** The account's incidents, newest first: of one service, open or resolved ones only, as asked. */
export async function listIncidents(
  db: Db,
  accountId: string,
  filter: { serviceId?: string; state?: 'open' | 'resolved'; limit: number; since?: Date },
): Promise<Incident[]> {
  const rows = await db.query<IncidentRow>(
    `SELECT * FROM incidents
      WHERE account_id = $1 AND ($2::text IS NULL OR service_id = $2)
        AND ($3::text IS NULL OR ($3 = 'open') = (status <> 'RESOLVED'))
        AND ($5::timestamptz IS NULL OR resolved_at IS NULL OR resolved_at >= $5)
      ORDER BY created_at DESC, seq DESC LIMIT $4`,
    [accountId, filter.serviceId ?? null, filter.state ?? null, filter.limit, filter.since ?? null],
  );
  return withUpdates(db, rows);
}

/** Renames or re-rates an incident; 404 when the account has no such incident. */
export async function editIncident(
  tx: Db,
  accountId: string,
  id: string,
  edit: { name?: string; description?: string; severity?: IncidentSeverity },
  now: Date,
): Promise<Incident> {
  const rows = await tx.query(
    `UPDATE incidents SET name = coalesce($3, name), description = coalesce($4, description),
            severity = coalesce($5, severity), updated_at = $6
      WHERE account_id = $1 AND id = $2 RETURNING id`,
    [accountId, id, edit.name ?? null, edit.description ?? null, edit.severity ?? null, now],
  );
  if (rows.length === 0) throw notFound('Incident', id);
  return (await getIncident(tx, accountId, id)) as Incident;
}

/** Adds an update: the incident takes its status (RESOLVED ends it, any other reopens it). 404 when unknown. */
export async function progressIncident(
  tx: Db,
  accountId: string,
  id: string,
  update: IncidentProgressBody,
  now: Date,
): Promise<Incident> {
  const [row] = await tx.query<{ service_id: string }>(
    `UPDATE incidents SET status = $3, updated_at = $4,
            resolved_at = CASE WHEN $3 = 'RESOLVED' THEN coalesce(resolved_at, $4) ELSE NULL END
      WHERE account_id = $1 AND id = $2 RETURNING service_id`,
    [accountId, id, update.status, now],
  );
  if (!row) throw notFound('Incident', id);
  await insertUpdate(tx, { accountId, id, serviceId: row.service_id }, update, now);
  return (await getIncident(tx, accountId, id)) as Incident;
}

export async function deleteIncident(db: Db, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM incidents WHERE account_id = $1 AND id = $2 RETURNING id', [
    accountId,
    id,
  ]);
  return rows.length > 0;
}

/** A deleted service takes its incidents with it. */
export async function deleteIncidentsOfService(db: Db, accountId: string, serviceId: string): Promise<void> {
  await db.query('DELETE FROM incidents WHERE account_id = $1 AND service_id = $2', [accountId, serviceId]);
}

/** The open incidents a check opened (`triggerIncident`), oldest first. */
export async function openIncidentsOfCheck(db: Db, accountId: string, checkId: string): Promise<Incident[]> {
  const rows = await db.query<IncidentRow>(
    `SELECT * FROM incidents WHERE account_id = $1 AND check_id = $2 AND status <> 'RESOLVED'
      ORDER BY created_at, seq`,
    [accountId, checkId],
  );
  return withUpdates(db, rows);
}

import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';

export const MAINTENANCE_STATUSES = ['SCHEDULED', 'IN_PROGRESS', 'COMPLETED'] as const;
export type MaintenanceStatus = (typeof MAINTENANCE_STATUSES)[number];

/** An update as the spec's Maintenance lists it (its dates are the occurrence's: updates do not move them). */
export interface MaintenanceUpdate {
  id: string;
  maintenanceWindowId: number;
  maintenanceId: string;
  status: string;
  description: string;
  notifySubscribers: boolean;
  created_at: string;
  previousStatus: string;
  previousStartsAt: string;
  previousEndsAt: string;
  dateAdjustments: { startsAt: string; endsAt: string };
}

interface Row {
  id: string;
  window_id: string;
  maintenance_id: string;
  status: string;
  previous_status: string;
  description: string;
  notify_subscribers: boolean;
  created_at: Date;
}

/** Keys updates by window and occurrence. */
export const updateKey = (windowId: number | string, maintenanceId: string) => `${windowId}:${maintenanceId}`;

/** The updates of these windows' maintenances, oldest first, by `updateKey`; `span` gives each its dates. */
export async function updatesOf(
  db: Db,
  accountId: string,
  windowIds: readonly (number | string)[],
): Promise<Map<string, (span: { startsAt: string; endsAt: string }) => MaintenanceUpdate[]>> {
  const rows = await db.query<Row>(
    `SELECT * FROM maintenance_updates WHERE account_id = $1 AND window_id = ANY($2::text[])
      ORDER BY created_at, seq`,
    [accountId, windowIds.map(String)],
  );
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    const key = updateKey(row.window_id, row.maintenance_id);
    grouped.set(key, [...(grouped.get(key) ?? []), row]);
  }
  return new Map(
    [...grouped].map(([key, list]) => [
      key,
      (span: { startsAt: string; endsAt: string }) =>
        list.map((r) => ({
          id: r.id,
          maintenanceWindowId: Number(r.window_id),
          maintenanceId: r.maintenance_id,
          status: r.status,
          description: r.description,
          notifySubscribers: r.notify_subscribers,
          created_at: iso(r.created_at),
          previousStatus: r.previous_status,
          previousStartsAt: span.startsAt,
          previousEndsAt: span.endsAt,
          dateAdjustments: { startsAt: span.startsAt, endsAt: span.endsAt },
        })),
    ]),
  );
}

/** Posts an update to a maintenance; answers its id. */
export async function insertMaintenanceUpdate(
  tx: Db,
  accountId: string,
  at: { windowId: number; maintenanceId: string; currentStatus: MaintenanceStatus },
  body: { status?: MaintenanceStatus; description: string; notifySubscribers: boolean },
  now: Date,
): Promise<string> {
  const id = randomUUID();
  await tx.query(
    `INSERT INTO maintenance_updates (id, account_id, window_id, maintenance_id, status, previous_status,
                                      description, notify_subscribers, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      accountId,
      String(at.windowId),
      at.maintenanceId,
      body.status ?? at.currentStatus,
      at.currentStatus,
      body.description,
      body.notifySubscribers,
      now,
    ],
  );
  return id;
}

import type { z } from 'zod';
import type { triggerIncidentSchema } from '../../checks/shared.js';
import { createIncident, openIncidentsOfCheck, progressIncident } from '../status-pages/incidents.js';
import { statusPageServices } from '../status-pages/services.js';
import type { Db } from '../store/db.js';
import type { AlertingCheck } from './evaluate.js';
import type { AlertType } from './state-machine.js';

type TriggerIncident = z.infer<typeof triggerIncidentSchema>;

/**
 * What an alert of a check with `triggerIncident` does to its status-page service (docs/status-pages.md): its
 * failure alert opens an incident (one at a time per check and service), its recovery resolves the incidents it
 * opened. A service deleted since opens nothing. Runs in the transaction that moves the alert state.
 */
export async function followIncident(
  tx: Db,
  check: AlertingCheck,
  alert: AlertType,
  now: Date,
): Promise<void> {
  const { accountId, id: checkId, name } = check.stored;
  if (alert === 'ALERT_FAILURE') {
    const trigger = check.stored.definition.triggerIncident as TriggerIncident | undefined;
    if (!trigger || !(await statusPageServices(tx).get(accountId, trigger.serviceId))) return;
    const open = await openIncidentsOfCheck(tx, accountId, checkId);
    if (open.some((incident) => incident.serviceId === trigger.serviceId)) return;
    await createIncident(
      tx,
      accountId,
      {
        serviceId: trigger.serviceId,
        name: trigger.name,
        description: trigger.description,
        severity: 'MAJOR',
        status: 'INVESTIGATING',
        notifySubscribers: trigger.notifySubscribers,
      },
      now,
      checkId,
    );
  } else if (alert === 'ALERT_RECOVERY') {
    for (const incident of await openIncidentsOfCheck(tx, accountId, checkId)) {
      await progressIncident(
        tx,
        accountId,
        incident.id,
        {
          status: 'RESOLVED',
          description: `${name} has recovered.`,
          notifySubscribers: incident.notifySubscribers,
        },
        now,
      );
    }
  }
}

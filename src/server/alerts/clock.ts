import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { alertingCheck, notificationsFor, retitled, stepInput } from './evaluate.js';
import { followIncident } from './incidents.js';
import { enqueueNotifications } from './outbox.js';
import { afterTime } from './state-machine.js';
import { dueAlertStates, saveAlertState, tryLockAlertState } from './state-store.js';
import { alertVariables } from './variables.js';

/** States looked at per tick; the rest wait for the next. */
const BATCH = 100;

/**
 * What time alone does to alert states (docs/alerting.md): a TIME_BASED failure that lasted long enough
 * escalates, and a FAILING check's reminder that is due is sent. Any replica may run it: a state another replica
 * holds is skipped. Returns how many notifications it wrote.
 */
export async function alertClockTick(db: Db, now: Date): Promise<number> {
  let written = 0;
  for (const due of await dueAlertStates(db, now, BATCH)) {
    written += await db.transaction(async (tx) => {
      const stored = await tryLockAlertState(tx, due.account_id, due.check_id);
      if (!stored) return 0;
      const check = await alertingCheck(tx, due.account_id, due.check_id, now);
      if (!check) {
        await tx.query('DELETE FROM alert_states WHERE account_id = $1 AND check_id = $2', [
          due.account_id,
          due.check_id,
        ]);
        return 0;
      }
      const step = afterTime(stored.state, stepInput(check, now));
      const told = stored.lastVariables ?? alertVariables('ALERT_FAILURE', check.facts, null, undefined, now);
      const notifications = step.alert
        ? await notificationsFor(
            tx,
            check,
            step.alert,
            retitled(told, step.alert),
            null,
            step.next.episodeId ?? randomUUID(),
          )
        : [];
      if (step.alert) await followIncident(tx, check, step.alert, now);
      await saveAlertState(tx, due.account_id, due.check_id, { ...stored, state: step.next }, now);
      await enqueueNotifications(tx, notifications, now);
      return notifications.length;
    });
  }
  return written;
}

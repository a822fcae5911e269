import { core } from './001-core.js';
import { resourceNumbers } from './010-resource-numbers.js';
import { runs } from './020-runs.js';
import { codeBundles } from './030-code-bundles.js';
import { alerts } from './040-alerts.js';
import { retention } from './050-retention.js';
import { checkSchedules } from './060-check-schedules.js';
import { leaseOrder } from './070-lease-order.js';
import { subMinutePhase } from './080-sub-minute-phase.js';
import { cancelRequests } from './090-cancel-requests.js';
import { heartbeatMonitors } from './100-heartbeat-monitors.js';
import { incidents } from './110-incidents.js';
import { subscriberMails } from './120-subscriber-mails.js';
import { maintenanceUpdates } from './130-maintenance-updates.js';
import { leanRunWrites } from './140-lean-run-writes.js';
import { webSessions } from './150-web-sessions.js';
import { agentConnectedAt } from './160-agent-connected-at.js';
import { runPayloads } from './170-run-payloads.js';
import { sessionKeys } from './180-session-keys.js';
import { leanRunIndexes } from './190-lean-run-indexes.js';
import { queueVacuum } from './200-queue-vacuum.js';
import { runsBySession } from './210-runs-by-session.js';
import { pgliteResultsByDay } from './220-pglite-results-by-day.js';

export interface Migration {
  name: string;
  /** SQL of both stores (empty when only one store's part has any). */
  sql: string;
  /** Run after `sql` on that store only, where the two must differ (e.g. partitioning on PostgreSQL). */
  pglite?: string;
  postgres?: string;
}

/** Every migration, in the order they apply, for PGlite and PostgreSQL. Never edit one that shipped. */
export const MIGRATIONS: readonly Migration[] = [
  core,
  resourceNumbers,
  runs,
  codeBundles,
  alerts,
  retention,
  checkSchedules,
  leaseOrder,
  subMinutePhase,
  cancelRequests,
  heartbeatMonitors,
  incidents,
  subscriberMails,
  maintenanceUpdates,
  leanRunWrites,
  webSessions,
  agentConnectedAt,
  runPayloads,
  sessionKeys,
  leanRunIndexes,
  queueVacuum,
  runsBySession,
  pgliteResultsByDay,
];

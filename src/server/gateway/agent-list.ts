import type { SlotCounts } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { iso, isoOrNull } from '../store/rows.js';
import { enginesOf, isLive } from './presence.js';

/**
 * CONNECTED: connected and heard from lately; UNRESPONSIVE: its connection is open as far as the store knows, but it
 * has been silent longer than the gateway allows (its server may have died); DISCONNECTED: it hung up.
 */
export type AgentState = 'CONNECTED' | 'UNRESPONSIVE' | 'DISCONNECTED';
const STATE_ORDER: readonly AgentState[] = ['CONNECTED', 'UNRESPONSIVE', 'DISCONNECTED'];

/** One agent of a private location, as `GET /v1/private-locations/{id}/agents` lists it. */
export interface AgentRecord {
  agentId: string;
  hostname: string;
  agentVersion: string;
  platform: string;
  nodeVersion: string;
  state: AgentState;
  /** The start of its current (or last) connection; null for a connection made before this was recorded. */
  connectedSince: string | null;
  firstSeen: string;
  lastSeen: string;
  /** The id of the key it connected with. */
  keyId: string | null;
  /** Runs leased to it and not finished, per slot class. */
  runsInFlight: SlotCounts;
  /** How many runs it takes at once, per slot class (from its hello). */
  capacity: SlotCounts;
  engines: string[];
  runtimes: string[];
}

interface Row {
  agent_id: string;
  hostname: string;
  agent_version: string;
  platform: string;
  node_version: string;
  connected: boolean;
  connected_at: Date | null;
  first_seen: Date;
  last_seen: Date;
  key_id: string | null;
  capabilities: { slots?: Partial<SlotCounts>; runtimes?: unknown; engines?: unknown } | null;
}

/** Every agent a private location has known: connected, then unresponsive, then gone; the last seen first in each. */
export async function listAgents(
  db: Db,
  location: { id: string; accountId: string; slugName: string },
  now: Date,
  freshMs: number,
): Promise<AgentRecord[]> {
  const rows = await db.query<Row>(
    `SELECT agent_id, hostname, agent_version, platform, node_version, connected, connected_at, first_seen,
            last_seen, key_id, capabilities
       FROM agents WHERE private_location_id = $1`,
    [location.id],
  );
  const leased = await db.query<{ agent_id: string; slot_class: string; count: number }>(
    `SELECT agent_id, slot_class, count(*)::int AS count FROM runs
      WHERE status = 'leased' AND account_id = $1 AND location = $2
      GROUP BY agent_id, slot_class`,
    [location.accountId, location.slugName],
  );
  const inFlight = (agentId: string, slotClass: keyof SlotCounts) =>
    Number(leased.find((l) => l.agent_id === agentId && l.slot_class === slotClass)?.count ?? 0);
  return rows
    .map((row): AgentRecord => {
      const slots = row.capabilities?.slots ?? {};
      const runtimes = row.capabilities?.runtimes;
      return {
        agentId: row.agent_id,
        hostname: row.hostname,
        agentVersion: row.agent_version,
        platform: row.platform,
        nodeVersion: row.node_version,
        state: isLive(row, now, freshMs) ? 'CONNECTED' : row.connected ? 'UNRESPONSIVE' : 'DISCONNECTED',
        connectedSince: isoOrNull(row.connected_at),
        firstSeen: iso(row.first_seen),
        lastSeen: iso(row.last_seen),
        keyId: row.key_id,
        runsInFlight: { light: inFlight(row.agent_id, 'light'), browser: inFlight(row.agent_id, 'browser') },
        capacity: { light: Number(slots.light ?? 0), browser: Number(slots.browser ?? 0) },
        engines: enginesOf(row.capabilities),
        runtimes: Array.isArray(runtimes) ? runtimes.filter((r): r is string => typeof r === 'string') : [],
      };
    })
    .sort(
      (a, b) =>
        STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state) ||
        b.lastSeen.localeCompare(a.lastSeen) ||
        a.agentId.localeCompare(b.agentId),
    );
}

import type { HelloMessage } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { isoOrNull, jsonParam } from '../store/rows.js';

export interface AgentIdentity {
  accountId: string;
  privateLocationId: string;
  agentId: string;
  /** Ties the row to one connection, so a stale close cannot mark a reconnected agent offline. */
  connectionId: string;
}

/** An agent said hello: it is connected, with this version and these capabilities. */
export async function agentConnected(
  db: Db,
  agent: AgentIdentity & { keyId: string; hello: HelloMessage; now: Date },
): Promise<void> {
  const { hello } = agent;
  const capabilities = {
    capabilities: hello.capabilities,
    slots: hello.slots,
    runtimes: hello.runtimes,
    engines: hello.engines ?? null,
  };
  await db.query(
    `INSERT INTO agents (account_id, private_location_id, agent_id, agent_version, hostname, capabilities, connected,
                         first_seen, last_seen, connected_at, connection_id, key_id, platform, node_version)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, true, $7, $7, $7, $8, $9, $10, $11)
     ON CONFLICT (private_location_id, agent_id) DO UPDATE SET
       agent_version = EXCLUDED.agent_version, hostname = EXCLUDED.hostname, capabilities = EXCLUDED.capabilities,
       connected = true, last_seen = EXCLUDED.last_seen, connected_at = EXCLUDED.connected_at,
       connection_id = EXCLUDED.connection_id,
       key_id = EXCLUDED.key_id, platform = EXCLUDED.platform, node_version = EXCLUDED.node_version`,
    [
      agent.accountId,
      agent.privateLocationId,
      agent.agentId,
      hello.agentVersion,
      hello.hostname,
      jsonParam(capabilities),
      agent.now,
      agent.connectionId,
      agent.keyId,
      hello.platform,
      hello.nodeVersion,
    ],
  );
}

export async function agentSeen(db: Db, agent: AgentIdentity, now: Date): Promise<void> {
  await db.query(
    `UPDATE agents SET last_seen = $4, connected = true
      WHERE private_location_id = $1 AND agent_id = $2 AND connection_id = $3`,
    [agent.privateLocationId, agent.agentId, agent.connectionId, now],
  );
}

export async function agentDisconnected(db: Db, agent: AgentIdentity, now: Date): Promise<void> {
  await db.query(
    `UPDATE agents SET connected = false, last_seen = $4
      WHERE private_location_id = $1 AND agent_id = $2 AND connection_id = $3`,
    [agent.privateLocationId, agent.agentId, agent.connectionId, now],
  );
}

/** The agents of a private location as its record shows them. */
export interface AgentsSummary {
  /** Agents connected now. */
  count: number;
  connected: boolean;
  /** Versions of the connected agents. */
  versions: string[];
  /** When any agent of the location was last heard from. */
  lastSeen: string | null;
  /** Check-suite engines of the connected agents (any of them has each). */
  engines: string[];
}

/**
 * Agents connected now: marked connected and heard from within `freshMs` (a server that died without closing
 * its connections leaves rows marked connected; their silence gives them away).
 */
export async function agentsSummary(
  db: Db,
  privateLocationId: string,
  now: Date,
  freshMs: number,
): Promise<AgentsSummary> {
  const rows = await db.query<{
    agent_version: string;
    connected: boolean;
    last_seen: Date;
    capabilities: { engines?: unknown } | null;
  }>('SELECT agent_version, connected, last_seen, capabilities FROM agents WHERE private_location_id = $1', [
    privateLocationId,
  ]);
  const live = rows.filter((r) => isLive(r, now, freshMs));
  const lastSeen = rows.reduce<Date | null>(
    (latest, r) => (latest === null || new Date(r.last_seen) > latest ? new Date(r.last_seen) : latest),
    null,
  );
  return {
    count: live.length,
    connected: live.length > 0,
    versions: [...new Set(live.map((r) => r.agent_version))].sort(),
    lastSeen: isoOrNull(lastSeen),
    engines: [...new Set(live.flatMap((r) => enginesOf(r.capabilities)))].sort(),
  };
}

/** Marked connected and heard from within `freshMs`: connected now. */
export function isLive(row: { connected: boolean; last_seen: Date }, now: Date, freshMs: number): boolean {
  return row.connected && new Date(row.last_seen).getTime() > now.getTime() - freshMs;
}

/** Agents connected now (as `agentsSummary` counts them) at every private location, zeros included. */
export async function connectedAgentsByLocation(
  db: Db,
  now: Date,
  freshMs: number,
): Promise<{ accountId: string; location: string; count: number }[]> {
  const rows = await db.query<{ account_id: string; location: string; count: number }>(
    `SELECT l.account_id, l.slug_name AS location,
            count(a.agent_id) FILTER (WHERE a.connected AND a.last_seen > $1)::int AS count
       FROM private_locations l LEFT JOIN agents a ON a.private_location_id = l.id
      GROUP BY l.account_id, l.slug_name`,
    [new Date(now.getTime() - freshMs)],
  );
  return rows.map((r) => ({ accountId: r.account_id, location: r.location, count: Number(r.count) }));
}

export function enginesOf(capabilities: { engines?: unknown } | null): string[] {
  const engines = capabilities?.engines;
  return Array.isArray(engines) ? engines.filter((e): e is string => typeof e === 'string') : [];
}

/** Whether a key still opens the gateway (not revoked, its location not deleted). */
export async function keyIsActive(db: Db, keyId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [keyId]);
  return rows.length > 0;
}

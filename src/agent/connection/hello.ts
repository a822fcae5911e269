import { hostname } from 'node:os';
import type { CheckType } from '../../checks/index.js';
import type { HelloMessage, SlotCounts } from '../../protocol/index.js';
import { version } from '../../version.js';
import type { Capability } from '../capabilities.js';

export interface HelloParts {
  agentId: string;
  capabilities: Record<CheckType, Capability>;
  runtimes: string[];
  /** The check-suite engines this agent has. */
  engines: string[];
  slots: SlotCounts;
  /** Runs whose leases should carry on. */
  running: string[];
}

/** The first message on a connection, in `protocolVersion`: who this agent is and what it can run. */
export function helloMessage(parts: HelloParts, protocolVersion: number): HelloMessage {
  return {
    type: 'hello',
    protocolVersion,
    agentId: parts.agentId,
    agentVersion: version,
    hostname: hostname().slice(0, 255),
    platform: `${process.platform}-${process.arch}`,
    nodeVersion: process.version,
    runtimes: parts.runtimes,
    ...(protocolVersion >= 2 ? { engines: parts.engines } : {}),
    capabilities: parts.capabilities,
    slots: parts.slots,
    running: parts.running,
  };
}

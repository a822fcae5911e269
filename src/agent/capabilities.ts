import { readdirSync } from 'node:fs';
import { CHECK_TYPES, type CheckType } from '../checks/index.js';
import { probeIcmpCapability } from '../executors/icmp/index.js';
import { UNAVAILABLE_KINDS } from '../executors/registry.js';

export interface Capability {
  available: boolean;
  reason: string | null;
}

/** What this agent can run, for the hello: every kind with whether it can and, if not, why. */
export async function probeCapabilities(): Promise<Record<CheckType, Capability>> {
  const icmp = await probeIcmpCapability();
  const unavailable: Partial<Record<CheckType, string>> = UNAVAILABLE_KINDS;
  const capabilities = {} as Record<CheckType, Capability>;
  for (const kind of CHECK_TYPES) {
    const reason = unavailable[kind];
    if (reason) capabilities[kind] = { available: false, reason };
    else if (kind === 'ICMP') capabilities[kind] = icmp;
    else capabilities[kind] = { available: true, reason: null };
  }
  return capabilities;
}

/** The script runtimes bundled with this build (folders like `runtimes/2026.04`). */
export function bundledRuntimes(): string[] {
  try {
    return readdirSync(new URL('../../runtimes/', import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && /^\d{4}\.\d{2}$/.test(entry.name))
      .map((entry) => entry.name)
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

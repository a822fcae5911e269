// The files themselves, not the folders' index.js: the agent loads only what it uses at start.
import { CHECK_TYPES, type CheckType } from '../checks/enums.js';
import { UNAVAILABLE_KINDS } from '../executors/registry.js';
import { installedRuntimes } from '../runtimes/catalog.js';
import { chromiumMissing, findChromium } from '../runtimes/chromium.js';
import { availableEngines, type EngineId } from '../runtimes/engines.js';
import { scriptUsersWarning } from '../runtimes/sandbox/script-users.js';
import { scriptSettingsFromEnv } from '../runtimes/settings.js';

export interface Capability {
  available: boolean;
  reason: string | null;
}

const AVAILABLE: Capability = { available: true, reason: null };

/** What the script kinds need: a runtime (BROWSER, MULTI_STEP), Chromium (BROWSER), an engine (PLAYWRIGHT). */
function scriptCapabilities(): Partial<Record<CheckType, Capability>> {
  const settings = scriptSettingsFromEnv();
  const runtimes = installedRuntimes(settings.runtimesDir);
  const noRuntime: Capability | null =
    runtimes.length === 0
      ? {
          available: false,
          reason: `no script runtime is installed in ${settings.runtimesDir} (npm ci in runtimes/<id>)`,
        }
      : null;
  const browser = findChromium(settings.chromiumPath)
    ? (noRuntime ?? AVAILABLE)
    : { available: false, reason: chromiumMissing(settings.chromiumPath) };
  const playwright: Capability =
    availableEngines(settings.runtimesDir).length > 0
      ? AVAILABLE
      : {
          available: false,
          reason: 'no engine for check suites (Node.js 22, 24, 26 or Bun 1.3) is installed',
        };
  return { BROWSER: browser, MULTI_STEP: noRuntime ?? AVAILABLE, PLAYWRIGHT: playwright };
}

/**
 * Whether ICMP checks can run: the raw-socket module is imported here, not at start, and a build of it that this
 * Node.js cannot load makes ICMP unavailable rather than stopping the agent.
 */
async function icmpCapability(): Promise<Capability> {
  try {
    const { probeIcmpCapability } = await import('../executors/icmp/capability.js');
    return await probeIcmpCapability();
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return { available: false, reason: `the raw-socket module cannot be loaded: ${message}` };
  }
}

/** What this agent can run, for the hello: every kind with whether it can and, if not, why. */
export async function probeCapabilities(): Promise<Record<CheckType, Capability>> {
  const icmp = await icmpCapability();
  const scripts = scriptCapabilities();
  const unavailable: Partial<Record<CheckType, string>> = UNAVAILABLE_KINDS;
  const capabilities = {} as Record<CheckType, Capability>;
  for (const kind of CHECK_TYPES) {
    const reason = unavailable[kind];
    if (reason) capabilities[kind] = { available: false, reason };
    else if (kind === 'ICMP') capabilities[kind] = icmp;
    else capabilities[kind] = scripts[kind] ?? AVAILABLE;
  }
  return capabilities;
}

/** The script runtimes this agent has installed (folders like `runtimes/2026.04`), newest first. */
export function bundledRuntimes(): string[] {
  return installedRuntimes(scriptSettingsFromEnv().runtimesDir).map((runtime) => runtime.id);
}

/** The engines for check suites this agent has (`node22`, `node24`, `node26`, `bun1.3`). */
export function bundledEngines(): EngineId[] {
  return availableEngines(scriptSettingsFromEnv().runtimesDir);
}

/**
 * Who scripts run as here, for the start-up log: the mode, and a warning when they are not kept from the agent,
 * or when a per-run range holds fewer uids than the agent has run slots (`slots`).
 */
export function scriptUsersSummary(slots: number): { mode: string; warning: string | null } {
  const users = scriptSettingsFromEnv().scriptUsers;
  if (users.mode === 'agent') return { mode: 'agent', warning: scriptUsersWarning(users) };
  if (users.mode === 'shared') return { mode: `uid ${users.user.uid}`, warning: null };
  const size = users.last - users.first + 1;
  const short =
    size < slots
      ? `VANTAGE_SCRIPT_USERS holds ${size} uids for ${slots} run slots: scripts beyond ${size} at once wait for a uid`
      : null;
  return { mode: `a uid per run, ${users.first}-${users.last}`, warning: short };
}

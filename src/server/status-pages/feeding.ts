import type { StoredRunnableCheck } from '../sessions/checks.js';

/** The checks that feed each service: those whose `triggerIncident` names it. */
export function feedingChecks(checks: readonly StoredRunnableCheck[]): Map<string, StoredRunnableCheck[]> {
  const byService = new Map<string, StoredRunnableCheck[]>();
  for (const check of checks) {
    const serviceId = (check.definition.triggerIncident as { serviceId?: unknown } | undefined)?.serviceId;
    if (typeof serviceId !== 'string') continue;
    byService.set(serviceId, [...(byService.get(serviceId) ?? []), check]);
  }
  return byService;
}

import type { IncidentSeverity } from '../incident-schema.js';

/** A service's state on its public page, best first (the usual vocabulary of status pages). */
export const SERVICE_STATES = [
  'OPERATIONAL',
  'UNDER_MAINTENANCE',
  'DEGRADED_PERFORMANCE',
  'PARTIAL_OUTAGE',
  'MAJOR_OUTAGE',
] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export const STATE_LABELS: Record<ServiceState, string> = {
  OPERATIONAL: 'Operational',
  UNDER_MAINTENANCE: 'Under maintenance',
  DEGRADED_PERFORMANCE: 'Degraded performance',
  PARTIAL_OUTAGE: 'Partial outage',
  MAJOR_OUTAGE: 'Major outage',
};

const SEVERITY_STATES: Record<IncidentSeverity, ServiceState> = {
  MINOR: 'DEGRADED_PERFORMANCE',
  MEDIUM: 'DEGRADED_PERFORMANCE',
  MAJOR: 'PARTIAL_OUTAGE',
  CRITICAL: 'MAJOR_OUTAGE',
};

export function worstState(states: Iterable<ServiceState>): ServiceState {
  let worst: ServiceState = 'OPERATIONAL';
  for (const state of states)
    if (SERVICE_STATES.indexOf(state) > SERVICE_STATES.indexOf(worst)) worst = state;
  return worst;
}

/**
 * A service's state (docs/status-pages.md): the worst of what its checks' alert states say (all failing: major
 * outage; some: partial; any degraded: degraded), what its open incidents say by severity, and maintenance in
 * progress on its checks.
 */
export function serviceState(facts: {
  checkStates: readonly string[];
  openSeverities: readonly IncidentSeverity[];
  inMaintenance: boolean;
}): ServiceState {
  const { checkStates } = facts;
  const failing = checkStates.filter((s) => s === 'FAILING').length;
  const fromChecks: ServiceState =
    failing > 0 && failing === checkStates.length
      ? 'MAJOR_OUTAGE'
      : failing > 0
        ? 'PARTIAL_OUTAGE'
        : checkStates.includes('DEGRADED')
          ? 'DEGRADED_PERFORMANCE'
          : 'OPERATIONAL';
  return worstState([
    fromChecks,
    ...facts.openSeverities.map((s) => SEVERITY_STATES[s]),
    facts.inMaintenance ? 'UNDER_MAINTENANCE' : 'OPERATIONAL',
  ]);
}

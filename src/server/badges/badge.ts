import { makeBadge } from 'badge-maker';
import { type ServiceState, STATE_LABELS } from '../status-pages/public/states.js';

/** What a check's badge says, with its color. */
const CHECK_STATES = {
  PASSING: ['passing', 'brightgreen'],
  DEGRADED: ['degraded', 'yellow'],
  FAILING: ['failing', 'red'],
  PAUSED: ['paused', 'lightgrey'],
  NONE: ['no data', 'lightgrey'],
} as const;
export type CheckBadgeState = keyof typeof CHECK_STATES;

const SERVICE_COLORS: Record<ServiceState, string> = {
  OPERATIONAL: 'brightgreen',
  UNDER_MAINTENANCE: 'blue',
  DEGRADED_PERFORMANCE: 'yellow',
  PARTIAL_OUTAGE: 'orange',
  MAJOR_OUTAGE: 'red',
};

/** The SVG of a check's state badge, shields.io's flat style (badge-maker). */
export function checkStateBadge(label: string, state: CheckBadgeState): string {
  const [message, color] = CHECK_STATES[state];
  return makeBadge({ label, message, color, style: 'flat' });
}

export function serviceStateBadge(label: string, state: ServiceState): string {
  return makeBadge({
    label,
    message: STATE_LABELS[state].toLowerCase(),
    color: SERVICE_COLORS[state],
    style: 'flat',
  });
}

/** Uptime over `days`, colored from green (99.9 % and more) to red (under 95 %); grey without runs. */
export function uptimeBadge(label: string, uptime: number | null, days: number): string {
  if (uptime === null) return makeBadge({ label, message: 'no data', color: 'lightgrey', style: 'flat' });
  const color = uptime >= 99.9 ? 'brightgreen' : uptime >= 99 ? 'green' : uptime >= 95 ? 'yellow' : 'red';
  return makeBadge({ label, message: `${uptime} % (${days} d)`, color, style: 'flat' });
}

import type { CheckType } from '../../checks/index.js';

/** The path segment of each kind's create and update routes (Checkly: /v1/checks/api, /v1/checks/multistep…). */
export const KIND_PATHS = {
  api: 'API',
  url: 'URL',
  tcp: 'TCP',
  dns: 'DNS',
  icmp: 'ICMP',
  browser: 'BROWSER',
  multistep: 'MULTI_STEP',
  playwright: 'PLAYWRIGHT',
  heartbeat: 'HEARTBEAT',
  agentic: 'AGENTIC',
} as const satisfies Record<string, CheckType>;

export type KindPath = keyof typeof KIND_PATHS;

export function pathOfKind(kind: CheckType): KindPath {
  return (Object.keys(KIND_PATHS) as KindPath[]).find((p) => KIND_PATHS[p] === kind) as KindPath;
}

import type { z } from 'zod';
import { CHECK_TYPES, type CheckType } from './enums.js';
import {
  agenticCheckSchema,
  browserCheckSchema,
  heartbeatCheckSchema,
  multiStepCheckSchema,
  playwrightCheckSchema,
} from './kinds/code.js';
import { apiCheckSchema, urlCheckSchema } from './kinds/http.js';
import { dnsCheckSchema, icmpCheckSchema, tcpCheckSchema } from './kinds/network.js';

/** The schema of every check kind, by its checkType. */
export const CHECK_SCHEMAS = {
  URL: urlCheckSchema,
  API: apiCheckSchema,
  TCP: tcpCheckSchema,
  DNS: dnsCheckSchema,
  ICMP: icmpCheckSchema,
  BROWSER: browserCheckSchema,
  MULTI_STEP: multiStepCheckSchema,
  PLAYWRIGHT: playwrightCheckSchema,
  HEARTBEAT: heartbeatCheckSchema,
  AGENTIC: agenticCheckSchema,
} as const satisfies Record<CheckType, z.ZodType>;

export type CheckOf<K extends CheckType> = z.infer<(typeof CHECK_SCHEMAS)[K]>;
/** A validated check of any kind, with every default applied. */
export type Check = { [K in CheckType]: CheckOf<K> }[CheckType];

export function isCheckType(value: unknown): value is CheckType {
  return typeof value === 'string' && (CHECK_TYPES as readonly string[]).includes(value);
}

export { runContext } from '../../support/execution.js';

import { type CheckOf, icmpCheckSchema } from '../../../src/checks/index.js';
import { probeIcmpCapability } from '../../../src/executors/icmp/index.js';

/** An ICMP check as a user would write it, with every default applied by the check model. */
export function icmpCheck(
  request: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): CheckOf<'ICMP'> {
  return icmpCheckSchema.parse({ name: 'icmp test', checkType: 'ICMP', request, ...fields });
}

export const assertion = (
  source: 'LATENCY' | 'JSON_RESPONSE',
  property: string,
  comparison: string,
  target: string,
) => ({ source, property, comparison, target, regex: null });

/** Whether this process may open raw sockets; tests that ping are skipped, saying why, when it may not. */
export const rawSockets = await probeIcmpCapability();
if (!rawSockets.available) console.warn(`ICMP tests that ping are skipped: ${rawSockets.reason}`);

/** A describe title that carries the reason when its tests are skipped for want of raw sockets. */
export const needsRawSockets = (title: string) =>
  rawSockets.available ? title : `${title} (skipped: ${rawSockets.reason})`;

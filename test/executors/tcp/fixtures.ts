export { runContext } from '../../support/execution.js';

import { type CheckOf, tcpCheckSchema } from '../../../src/checks/index.js';

/** A TCP check as a user would write it, with every default applied by the check model. */
export function tcpCheck(
  request: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): CheckOf<'TCP'> {
  return tcpCheckSchema.parse({ name: 'tcp test', checkType: 'TCP', request, ...fields });
}

export const assertion = (
  source: 'RESPONSE_DATA' | 'RESPONSE_TIME',
  comparison: string,
  target: string,
  property = '',
) => ({ source, comparison, target, property, regex: null });

export { runContext } from '../../support/execution.js';

import { type CheckOf, dnsCheckSchema } from '../../../src/checks/index.js';
import type { TestDnsServer } from '../../support/dns-server.js';

/** A DNS check as a user would write it, asking the test server, with every default of the check model. */
export function dnsCheck(
  server: TestDnsServer,
  request: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): CheckOf<'DNS'> {
  return dnsCheckSchema.parse({
    name: 'dns test',
    checkType: 'DNS',
    request: { nameServer: server.address, port: server.port, ...request },
    ...fields,
  });
}

export const assertion = (
  source: 'RESPONSE_CODE' | 'RESPONSE_TIME' | 'TEXT_ANSWER' | 'JSON_ANSWER',
  comparison: string,
  target: string,
  options: { property?: string; regex?: string | null } = {},
) => ({ source, comparison, target, property: options.property ?? '', regex: options.regex ?? null });

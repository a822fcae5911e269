import type { Check } from '../../checks/index.js';
import type { ScriptIdentity } from '../../runtimes/index.js';
import type { ExecutionContext } from '../types.js';

/** Who a script runs for, as its runtime variables tell it. */
export function identityOf(check: Check, context: ExecutionContext, runtimeVersion: string): ScriptIdentity {
  return {
    checkId: check.id ?? '',
    checkName: check.name,
    checkType: check.checkType,
    runId: context.runId,
    region: context.runLocation,
    runtimeVersion,
  };
}

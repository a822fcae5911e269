import type { CheckType } from '../checks/index.js';
import type { SlotClass } from './messages.js';

const BROWSER_KINDS: ReadonlySet<CheckType> = new Set(['BROWSER', 'MULTI_STEP', 'PLAYWRIGHT']);

/** Which of an agent's slot classes a run of this kind takes. */
export function slotClassOf(kind: CheckType): SlotClass {
  return BROWSER_KINDS.has(kind) ? 'browser' : 'light';
}

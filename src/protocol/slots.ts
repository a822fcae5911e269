import type { CheckType } from '../checks/enums.js';

/** The two slot classes of an agent: lightweight kinds, and browser-based kinds. */
export const SLOT_CLASSES = ['light', 'browser'] as const;
export type SlotClass = (typeof SLOT_CLASSES)[number];

/** A number for each slot class (capacity, credit, free slots). */
export interface SlotCounts {
  light: number;
  browser: number;
}

const BROWSER_KINDS: ReadonlySet<CheckType> = new Set(['BROWSER', 'MULTI_STEP', 'PLAYWRIGHT']);

/** Which of an agent's slot classes a run of this kind takes. */
export function slotClassOf(kind: CheckType): SlotClass {
  return BROWSER_KINDS.has(kind) ? 'browser' : 'light';
}

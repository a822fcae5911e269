import { spoken } from '../format.js';
import type { CheckState } from '../types.js';

/** A check's state as a word and a colour (the word carries it: colour is never the only sign). */
export function StateBadge({ state }: { state: CheckState | string }) {
  return <span class={`state state-${state.toLowerCase()}`}>{spoken(state)}</span>;
}

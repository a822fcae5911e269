import { type AssertionSpec, evaluateAssertions } from '../../assertions/index.js';

/**
 * Comparisons that hold only once something expected has arrived. Negative ones (NOT_CONTAINS, IS_EMPTY,
 * LESS_THAN…) hold on a partial reply that later data may break, so they alone never end a read early.
 */
const EVIDENCE_OF_ARRIVAL = new Set(['EQUALS', 'CONTAINS', 'NOT_EMPTY']);

/**
 * A test telling whether the reply so far already satisfies every RESPONSE_DATA assertion, so the read can
 * stop without waiting for the peer to close or go quiet; null when the assertions cannot decide that.
 */
export function completionTest(assertions: readonly AssertionSpec[]): ((text: string) => boolean) | null {
  const dataAssertions = assertions.filter((a) => a.source === 'RESPONSE_DATA');
  if (!dataAssertions.some((a) => EVIDENCE_OF_ARRIVAL.has(a.comparison))) return null;
  return (text) => {
    try {
      return evaluateAssertions(dataAssertions, { text }).every((a) => a.error === null);
    } catch {
      return false;
    }
  };
}

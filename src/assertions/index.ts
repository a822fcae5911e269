/**
 * The assertion engine shared by executors. It depends on nothing else of ours: the shapes below are
 * structural, matching the assertion and assertion-result records of docs/checks.md.
 */
import { EvaluationContext } from './context.js';
import { evaluateAssertion } from './evaluate.js';

export interface AssertionSpec {
  source: string;
  property: string;
  comparison: string;
  target: string;
  regex: string | null;
}

/** An evaluated assertion: its fields, plus `actual` (the value compared) and `error` (null when it held). */
export interface AssertionOutcome extends AssertionSpec {
  actual: unknown;
  error: string | null;
}

/** What a response offers to assertions; each executor fills the parts its sources read. */
export interface AssertionSubject {
  /** STATUS_CODE */
  statusCode?: number;
  /** RESPONSE_TIME, milliseconds */
  responseTime?: number;
  /** HEADERS; names in any case */
  headers?: Record<string, string | string[] | undefined>;
  /** TEXT_BODY, RESPONSE_DATA, TEXT_ANSWER */
  text?: string;
  /** JSON_BODY, JSON_ANSWER, JSON_RESPONSE: returns the parsed value; throws when the text is not JSON */
  json?: () => unknown;
  /** RESPONSE_CODE (DNS), e.g. NOERROR */
  responseCode?: string;
  /** LATENCY (ICMP), milliseconds */
  latency?: { avg: number | null; min: number | null; max: number | null; stdDev: number | null };
}

/**
 * Evaluates each assertion against the subject, in order. Never throws: an unknown source or comparison, a
 * source the subject does not offer, a bad regex or JSONPath, or invalid JSON gives that assertion an error.
 * The subject's JSON is parsed at most once per call, and only when a JSON source is asked for.
 */
export function evaluateAssertions<A extends AssertionSpec>(
  assertions: readonly A[],
  subject: AssertionSubject,
): (A & AssertionOutcome)[] {
  if (!Array.isArray(assertions)) return [];
  const context = new EvaluationContext(subject ?? {});
  return assertions.map((assertion) => ({
    ...(typeof assertion === 'object' ? assertion : ({} as A)),
    ...evaluateAssertion(assertion, context),
  }));
}

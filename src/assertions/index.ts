/**
 * The assertion engine shared by executors. It depends on nothing else of ours: the shapes below are
 * structural, matching the assertion and assertion-result records of design/checks.md.
 */

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

export function evaluateAssertions(
  _assertions: readonly AssertionSpec[],
  _subject: AssertionSubject,
): AssertionOutcome[] {
  throw new Error('evaluateAssertions: being built');
}

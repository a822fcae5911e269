import {
  type AssertionOutcome,
  type AssertionSpec,
  type AssertionSubject,
  evaluateAssertions,
} from '../../src/assertions/index.js';

/** An assertion as a check holds it: unused property '' and regex null. */
export function assertion(
  source: string,
  comparison: string,
  target = '',
  property = '',
  regex: string | null = null,
): AssertionSpec {
  return { source, property, comparison, target, regex };
}

export function evaluateOne(spec: AssertionSpec, subject: AssertionSubject): AssertionOutcome {
  const [outcome] = evaluateAssertions([spec], subject);
  if (!outcome) throw new Error('no outcome');
  return outcome;
}

/** A subject whose JSON sources read `document`, as an HTTP executor would offer a JSON body. */
export function jsonSubject(document: unknown): AssertionSubject {
  const text = JSON.stringify(document) ?? '';
  return { text, json: () => JSON.parse(text) };
}

import { compare, isComparison } from './compare.js';
import type { EvaluationContext } from './context.js';
import { failureMessage, limitActual } from './format.js';
import type { AssertionOutcome, AssertionSpec } from './index.js';
import { select } from './sources.js';

/** Evaluates one assertion; any problem, even a malformed assertion, becomes its error. */
export function evaluateAssertion(raw: unknown, context: EvaluationContext): AssertionOutcome {
  const spec = normalize(raw);
  try {
    return { ...spec, ...judge(spec, context) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...spec, actual: null, error: `the assertion could not be evaluated: ${message}` };
  }
}

function judge(spec: AssertionSpec, context: EvaluationContext): Pick<AssertionOutcome, 'actual' | 'error'> {
  const { comparison, target } = spec;
  if (!isComparison(comparison))
    return { actual: null, error: `unknown comparison ${JSON.stringify(comparison)}` };
  const selection = select(spec, context);
  if ('error' in selection) return { actual: null, error: selection.error };
  const { items, many, options } = selection;
  const values = items.map((item) => item.value);
  const actual = limitActual(many ? values.map((value) => value ?? null) : values[0]);
  for (const item of items) {
    const failure = compare(item.value, comparison, target, options);
    if (failure) {
      const error =
        failure.invalid ?? item.missing ?? failureMessage(item.label, comparison, target, failure);
      return { actual, error };
    }
  }
  return { actual, error: null };
}

/** The assertion's fields as strings (regex: string or null), whatever was passed. */
function normalize(raw: unknown): AssertionSpec {
  const fields = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const text = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (value === undefined || value === null) return '';
    try {
      return String(value);
    } catch {
      return '';
    }
  };
  const regex = fields.regex === undefined || fields.regex === null ? null : text(fields.regex);
  return {
    source: text(fields.source),
    property: text(fields.property),
    comparison: text(fields.comparison),
    target: text(fields.target),
    regex,
  };
}

import type { IncomingHttpHeaders } from 'node:http';
import { evaluateAssertions } from '../../assertions/index.js';
import type { AssertionResult, HttpCheck } from '../../checks/index.js';

export interface ResponseFacts {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  responseTime: number;
}

export interface Verdict {
  assertions: AssertionResult[];
  /** Why the response fails the check, or null when it passes. */
  failure: string | null;
}

function lazyJson(text: string): () => unknown {
  let parsed: { value: unknown } | undefined;
  return () => {
    parsed ??= { value: JSON.parse(text) };
    return parsed.value;
  };
}

/** The check's assertions against a response; with none at all, a status of 400 or above fails. */
export function judge(check: HttpCheck, facts: ResponseFacts): Verdict {
  const specs = check.request.assertions;
  if (specs.length === 0) {
    const failure = facts.status >= 400 ? `status ${facts.status} is 400 or above` : null;
    return { assertions: [], failure };
  }
  const assertions = evaluateAssertions(specs, {
    statusCode: facts.status,
    headers: facts.headers,
    text: facts.text,
    json: lazyJson(facts.text),
    responseTime: facts.responseTime,
  }) as AssertionResult[];
  return { assertions, failure: assertions.find((a) => a.error !== null)?.error ?? null };
}

import type { AssertionSubject } from './index.js';

/** What one evaluation call shares between its assertions: the parsed JSON document. */
export class EvaluationContext {
  /** undefined: not parsed yet; null: the subject's text is not JSON. */
  private parsed: { value: unknown } | null | undefined;

  constructor(readonly subject: AssertionSubject) {}

  /** The subject's JSON document, parsed on first use; undefined when it is not valid JSON. */
  document(): { value: unknown } | undefined {
    if (this.parsed === undefined) {
      try {
        this.parsed = { value: this.subject.json?.() };
      } catch {
        this.parsed = null;
      }
    }
    return this.parsed ?? undefined;
  }
}

import { type Check, type ParseResult, parseCheck } from '../checks/index.js';

/** Distinct check versions remembered; past it, the one validated longest ago is forgotten. */
const REMEMBERED = 500;

/**
 * Checks validated once per version: a check that runs every minute arrives as the same stored text at every run,
 * and its validation (the check model's schemas, with every default applied) is the costliest step of accepting a
 * run. The key is the check's JSON text, so any change to the check is validated anew. The checks handed out are
 * shared between runs and never changed by them.
 */
export class ParsedChecks {
  private readonly byText = new Map<string, ParseResult<Check>>();

  parse(raw: Record<string, unknown>): ParseResult<Check> {
    const text = JSON.stringify(raw);
    const known = this.byText.get(text);
    if (known) return known;
    const parsed = parseCheck(raw);
    if (this.byText.size >= REMEMBERED) this.byText.delete(this.byText.keys().next().value as string);
    this.byText.set(text, parsed);
    return parsed;
  }
}

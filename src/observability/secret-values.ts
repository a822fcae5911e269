import { MASK, secretMasker } from '../checks/secrets.js';

/** Placeholder for credentials found by their shape rather than by their value. */
export const REDACTED = '[redacted]';

/** Private-location keys, and bearer/basic credentials as they appear in headers. */
const CREDENTIAL_PATTERNS: readonly [RegExp, string][] = [
  [/pl_[A-Za-z0-9-]{1,64}\.[a-z0-9][a-z0-9-]{0,62}\.[A-Za-z0-9_-]{8,128}/g, REDACTED],
  [/\bvk_[A-Za-z0-9_-]{16,128}/g, REDACTED],
  [/\b(Bearer|Basic|Token)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{4,}/gi, `$1$2${REDACTED}`],
];

/** How many secret values are remembered; the oldest are forgotten first. */
const MAX_VALUES = 2000;

/**
 * The secret values this process knows (its API key, secret variables of the runs it received), and the mask
 * that hides them and anything shaped like a credential. Logs and error reports pass through it.
 */
export class SecretValues {
  private readonly values = new Set<string>();
  private masker: ((text: string) => string) | null = null;

  constructor(initial: readonly string[] = []) {
    this.add(initial);
  }

  add(values: readonly string[]): void {
    let changed = false;
    for (const value of values) {
      if (value.length < 3 || this.values.has(value)) continue;
      this.values.add(value);
      changed = true;
    }
    while (this.values.size > MAX_VALUES) {
      const oldest = this.values.values().next().value as string;
      this.values.delete(oldest);
    }
    if (changed) this.masker = null;
  }

  /** Known values become `*****`, credential-shaped tokens `[redacted]`. */
  mask = (text: string): string => {
    this.masker ??= secretMasker([...this.values]);
    let out = this.masker(text);
    for (const [pattern, replacement] of CREDENTIAL_PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
}

export { MASK };

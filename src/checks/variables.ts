/** `{{NAME}}` variables: check variables over group variables over account variables. */

export interface Variable {
  key: string;
  value: string;
  secret?: boolean;
  /** Locked values are hidden by the API and masked in results like secret ones. */
  locked?: boolean;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** The names of `{{NAME}}` placeholders left in a text: variables nobody defined. */
export function placeholdersIn(text: string): string[] {
  if (!text.includes('{{')) return [];
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

/** The variables a run sees, resolved once from its layers (first layer wins). */
export class VariableSet {
  private readonly byKey = new Map<string, Variable>();

  /** @param layers highest priority first, e.g. `[cliEnv, check, group, account]` */
  constructor(...layers: (readonly Variable[] | null | undefined)[]) {
    for (const layer of layers) {
      for (const variable of layer ?? []) {
        if (!this.byKey.has(variable.key)) this.byKey.set(variable.key, variable);
      }
    }
  }

  get(key: string): string | undefined {
    return this.byKey.get(key)?.value;
  }

  /** Replaces every known `{{NAME}}`; unknown names stay as written so the author sees them. */
  substitute(text: string): string {
    if (!text.includes('{{')) return text;
    return text.replace(PLACEHOLDER, (whole, key: string) => this.byKey.get(key)?.value ?? whole);
  }

  /** The values that must never appear in results, logs or error reports: of secret and locked variables. */
  secretValues(): string[] {
    return this.hidden().map((v) => v.value);
  }

  /** Keys of hidden variables too short to be masked inside other text (see MIN_SUBSTRING_SECRET_LENGTH). */
  shortSecretKeys(minLength: number): string[] {
    return this.hidden()
      .filter((v) => v.value.length < minLength)
      .map((v) => v.key);
  }

  private hidden(): Variable[] {
    return [...this.byKey.values()].filter((v) => (v.secret || v.locked) && v.value !== '');
  }

  /** Plain key/value pairs, for a script's environment. */
  toEnv(): Record<string, string> {
    return Object.fromEntries([...this.byKey.values()].map((v) => [v.key, v.value]));
  }
}

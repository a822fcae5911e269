import { accessSync, constants } from 'node:fs';
import { LOG_LEVELS, type LogLevelName } from '../observability/log-levels.js';

/**
 * Environment settings, read the same strict way by the agent, the control plane, the script sandbox and the CLI:
 * a schema of fields made with the helpers below, parsed with `parseEnv`. A value that breaks its field's rule is a
 * problem `NAME: what is wrong`, never replaced by a default; unset and empty are the same (the default applies).
 */

/** What reading one value gives: the value, or what is wrong with it (`must be …`). */
export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The rule of one variable's text: the setting, or what is wrong. */
export interface Field<T> {
  read(text: string): Read<T>;
}

/** A variable of a schema: a field that says what unset means (`optional`, `withDefault`, `required`). */
export interface Setting<T> {
  read(text: string | undefined): Read<T>;
}

/**
 * The variables a command reads, by name. Plain functions rather than zod: the agent reads its settings at start,
 * and zod takes ≈ 0.1 s and 15 MB to load (docs/performance.md, "Agent start-up and memory").
 */
export interface EnvSchema<S extends Record<string, Setting<unknown>> = Record<string, Setting<unknown>>> {
  readonly shape: S;
}

/** A schema of `shape`; two schemas are joined with `envSchema({ ...a.shape, ...b.shape })`. */
export const envSchema = <S extends Record<string, Setting<unknown>>>(shape: S): EnvSchema<S> => ({ shape });

/** The settings a schema reads, by variable name. */
export type EnvValues<E extends EnvSchema> = {
  [K in keyof E['shape']]: E['shape'][K] extends Setting<infer T> ? T : never;
};

/** What a loader gives: the settings, or one line `NAME: what is wrong` per problem. */
export type Loaded<T> = { ok: true; config: T } | { ok: false; problems: string[] };

/** Thrown by a loader that cannot answer with problems (see scriptSettingsFromEnv); the message is the lines. */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

/** Unset and empty (or only spaces) are the same. */
const isUnset = (v: string | undefined): v is undefined => v === undefined || v.trim() === '';

/** A variable that may be unset (undefined then). */
export const optional = <T>(field: Field<T>): Setting<T | undefined> => ({
  read: (v) => (isUnset(v) ? { ok: true, value: undefined } : field.read(v)),
});

/** A variable that is `value` when unset. */
export const withDefault = <T>(field: Field<T>, value: NoInfer<T>): Setting<T> => ({
  read: (v) => (isUnset(v) ? { ok: true, value } : field.read(v)),
});

/** A variable that must be set: `what` says what it is, e.g. `the control plane base URL, like https://…`. */
export const required = <T>(field: Field<T>, what: string): Setting<T> => ({
  read: (v) => (isUnset(v) ? { ok: false, problem: `is required: ${what}` } : field.read(v)),
});

/** Text that `parse` turns into a value, or null when it breaks `rule`. */
export const parsedBy = <T>(parse: (value: string) => T | null, rule: string): Field<T> => ({
  read: (v) => {
    const value = parse(v);
    return value === null ? { ok: false, problem: rule } : { ok: true, value };
  },
});

/** Any text (a path, a name, a token). */
export const text = (minLength = 1): Field<string> =>
  parsedBy((v) => (v.length >= minLength ? v : null), `must be at least ${minLength} characters`);

/** Text of a form: `rule` says which, e.g. `must be same, or UID:GID of …`. */
export const matching = (pattern: RegExp, rule: string): Field<string> =>
  parsedBy((v) => (pattern.test(v) ? v : null), rule);

/** A whole number from `min` to `max`, spaces around it allowed. */
export const wholeNumber = (min: number, max: number): Field<number> => {
  const rule = `must be a whole number from ${min} to ${max}`;
  return parsedBy(
    (v) => (/^\s*\d+\s*$/.test(v) && Number(v) >= min && Number(v) <= max ? Number(v) : null),
    rule,
  );
};

/** A number above 0 and at most `max` (fractions allowed). */
export const positiveNumber = (max: number): Field<number> =>
  parsedBy((v) => {
    const n = Number(v);
    return Number.isFinite(n) && n > 0 && n <= max ? n : null;
  }, `must be a number above 0, at most ${max}`);

/** `yes`/`no` as on/off, true/false or 1/0, any case. */
export const onOff = (): Field<boolean> =>
  parsedBy((v) => {
    const value = v.trim().toLowerCase();
    if (['on', 'true', '1'].includes(value)) return true;
    return ['off', 'false', '0'].includes(value) ? false : null;
  }, 'must be on or off');

/** One of `values`, any case, spaces around it allowed; the value as `values` spells it. */
export const oneOf = <const T extends string>(values: readonly T[]): Field<T> =>
  parsedBy(
    (v) => values.find((allowed) => allowed.toLowerCase() === v.trim().toLowerCase()) ?? null,
    `must be one of ${values.join(', ')}`,
  );

/** A log level of the logger (DEBUG, LOG, INFO, WARN, ERROR). */
export const logLevel = (): Field<LogLevelName> => oneOf(LOG_LEVELS);

/** `a` or `an` before a scheme, as it is spoken (`an http://`, `a postgres://`). */
const article = (word: string) => (/^[aefhilmnorsx]/i.test(word) ? 'an' : 'a');

/**
 * A URL of one of `schemes` (without `:`), e.g. `['http', 'https']`, trimmed; `example` is shown in the rule. A host
 * is required unless `hostOptional` (a PostgreSQL URL may name a socket folder in its query instead).
 */
export const url = (
  schemes: readonly string[],
  example: string,
  { hostOptional = false } = {},
): Field<string> => {
  const [first = '', ...rest] = schemes.map((s) => `${s}://`);
  const names = rest.length === 0 ? first : `${[first, ...rest.slice(0, -1)].join(', ')} or ${rest.at(-1)}`;
  const rule = `must be ${article(first)} ${names} URL like ${example}`;
  return parsedBy((v) => {
    const value = v.trim();
    try {
      const parsed = new URL(value);
      const scheme = parsed.protocol.replace(/:$/, '');
      return schemes.includes(scheme) && (hostOptional || parsed.hostname !== '') ? value : null;
    } catch {
      return null;
    }
  }, rule);
};

/** An http:// or https:// URL with a host. */
export const httpUrl = (example: string): Field<string> => url(['http', 'https'], example);

/** A file this process can read; `what` names it in the rule (`a readable PEM file of …`). */
export const readableFile = (what: string): Field<string> =>
  parsedBy((path) => {
    try {
      accessSync(path, constants.R_OK);
      return path;
    } catch {
      return null;
    }
  }, `must name a readable ${what}`);

/** The environment's values by `schema`, or one line `NAME: what is wrong` per variable that breaks its rule. */
export function parseEnv<E extends EnvSchema>(
  schema: E,
  env: NodeJS.ProcessEnv,
): { ok: true; values: EnvValues<E> } | { ok: false; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(schema.shape)) {
    const read = setting.read(env[name]);
    if (read.ok) values[name] = read.value;
    else problems.push(`${name}: ${read.problem}`);
  }
  return problems.length === 0 ? { ok: true, values: values as EnvValues<E> } : { ok: false, problems };
}

/**
 * `true` when a schema reads exactly the settings of a name list. Commands' `--help` shows lists that load no
 * schema; beside each schema `true satisfies SameNames<typeof schema, typeof NAMES>` fails to compile when the two
 * differ.
 */
export type SameNames<E extends EnvSchema, N extends readonly string[]> = [keyof E['shape']] extends [
  N[number],
]
  ? [N[number]] extends [keyof E['shape']]
    ? true
    : false
  : false;

/** Problems as a command prints them before it stops: one line each. */
export const problemLines = (problems: readonly string[]): string => problems.map((p) => `${p}\n`).join('');

/** Masks secret values wherever they could surface: results, logs and error reports. */

export const MASK = '*****';

/**
 * Secrets shorter than this are masked only where a whole text equals them: masked inside other text, a secret
 * `"0"` would turn every 0 of every result into `*****` (and so reveal itself).
 */
export const MIN_SUBSTRING_SECRET_LENGTH = 6;

/** What a user is told about a secret too short to be masked inside other text. */
export function shortSecretWarning(key: string): string {
  return `secret variable ${key} is shorter than ${MIN_SUBSTRING_SECRET_LENGTH} characters: it is masked only where a whole value equals it, since masking it inside other text would corrupt results and reveal it`;
}

/** The forms a secret takes once it has passed through a URL, a form body or JSON. */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret]);
  forms.add(encodeURIComponent(secret));
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  forms.add(encodeURI(secret));
  forms.add(JSON.stringify(secret).slice(1, -1));
  // Its UTF-8 bytes as latin1 text (one character a byte): how it stands in a binary body before base64.
  forms.add(Buffer.from(secret, 'utf8').toString('latin1'));
  return [...forms].filter((f) => f !== '');
}

/** A function that masks secrets; `masksNothing` when there are none, so callers can skip preparing text for it. */
export type Masker = ((text: string) => string) & { readonly masksNothing?: true };

const MASKS_NOTHING: Masker = Object.assign((text: string) => text, { masksNothing: true as const });

/**
 * A function that masks every given secret in a string, longer secrets first. Secrets of at least
 * MIN_SUBSTRING_SECRET_LENGTH characters are masked wherever they appear; shorter ones only as a whole text.
 */
export function secretMasker(secrets: readonly string[]): Masker {
  const forms = [...new Set(secrets.flatMap(formsOf))];
  const long = forms
    .filter((f) => f.length >= MIN_SUBSTRING_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  const whole = new Set(forms.filter((f) => f.length < MIN_SUBSTRING_SECRET_LENGTH));
  if (forms.length === 0) return MASKS_NOTHING;
  const pattern =
    long.length > 0
      ? new RegExp(long.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
      : null;
  return (text) => {
    if (whole.has(text)) return MASK;
    return pattern ? text.replace(pattern, MASK) : text;
  };
}

/** Masks secrets in every string of a JSON-like value, keys included; returns a copy. */
export function maskDeep<T>(value: T, mask: (text: string) => string): T {
  if (typeof value === 'string') return mask(value) as T;
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, mask)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[mask(k)] = maskDeep(v, mask);
    return out as T;
  }
  return value;
}

/** Header names whose values are credentials, whatever the check says. */
export const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** The secrets of an HTTP Basic credential: its password, and `user:password` in base64 as the header sends it. */
export function basicCredentialSecrets(username: string, password: string): string[] {
  if (password === '') return [];
  return [password, Buffer.from(`${username}:${password}`).toString('base64')];
}

/** The secrets of a credential header's value: all of it, and its credential after the scheme (`Bearer x`). */
export function credentialHeaderSecrets(value: string): string[] {
  const credential = /^\S+\s+(\S.*)$/.exec(value.trim())?.[1];
  return [value, ...(credential ? [credential] : [])].filter((v) => v !== '');
}

/** Masks secret values wherever they could surface: results, logs and error reports. */

export const MASK = '*****';

/** The forms a secret takes once it has passed through a URL, a form body or a Basic credential. */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret]);
  forms.add(encodeURIComponent(secret));
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  forms.add(encodeURI(secret));
  forms.add(JSON.stringify(secret).slice(1, -1));
  return [...forms].filter((f) => f !== '');
}

/** A function that masks every given secret in a string; longer secrets are replaced first. */
export function secretMasker(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return (text) => text.replace(pattern, MASK);
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

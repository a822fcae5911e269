import type { Check } from './check.js';
import { basicCredentialSecrets, CREDENTIAL_HEADERS, credentialHeaderSecrets } from './secrets.js';
import type { VariableSet } from './variables.js';

/** The credentials in a URL's userinfo (`https://user:pass@host`), as sent in a Basic header. */
function userinfoSecrets(url: string): string[] {
  // No userinfo without an `@`: most URLs are not parsed at all.
  if (!url.includes('@')) return [];
  try {
    const parsed = new URL(url.trim());
    const password = decodeURIComponent(parsed.password);
    return [parsed.password, ...basicCredentialSecrets(decodeURIComponent(parsed.username), password)];
  } catch {
    return [];
  }
}

/**
 * Everything of a run that must never appear in its result, logs or error reports: the values of secret and locked
 * variables, and the credentials of its request — Basic passwords and the `user:password` base64 a server may echo,
 * the values of credential headers (Authorization, Cookie, …) — with variables substituted.
 */
export function runSecrets(check: Check, variables: VariableSet): string[] {
  const secrets = variables.secretValues();
  if (check.checkType !== 'API' && check.checkType !== 'URL') return secrets;
  const sub = (text: string) => variables.substitute(text);
  secrets.push(...userinfoSecrets(sub(check.request.url)));
  if (check.checkType === 'API') {
    const { basicAuth, headers } = check.request;
    if (basicAuth) secrets.push(...basicCredentialSecrets(sub(basicAuth.username), sub(basicAuth.password)));
    for (const header of headers) {
      if (CREDENTIAL_HEADERS.has(sub(header.key).toLowerCase()))
        secrets.push(...credentialHeaderSecrets(sub(header.value)));
    }
  }
  return [...new Set(secrets.filter((s) => s !== ''))];
}

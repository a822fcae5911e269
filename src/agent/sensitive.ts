import type { AgentConfig } from './config.js';

/** Names of environment variables whose values must never leave the machine in an error report. */
const SENSITIVE_ENV = /KEY|SECRET|TOKEN|PASS|PROXY|AUTH|CREDENTIAL|URL|DSN|CERT/i;

/** Values of sensitive-looking variables, leaving out ones too short or too common to scrub usefully. */
export function sensitiveEnvValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SENSITIVE_ENV.test(name) && value && value.length >= 6)
    .map(([, value]) => value as string)
    .filter((value) => !/^(true|false|enabled|disabled)$/i.test(value));
}

/** Passwords in the control plane's and the proxies' URLs are secrets too. */
export function urlPasswords(config: AgentConfig): string[] {
  const passwords: string[] = [];
  for (const url of [config.apiUrl, config.proxy.httpProxy, config.proxy.httpsProxy]) {
    if (!url) continue;
    const password = new URL(url).password;
    if (password) passwords.push(password, decodeURIComponent(password));
  }
  return passwords;
}

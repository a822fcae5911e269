import type { HttpsProxyAgent } from 'https-proxy-agent';
import type { AgentConfig } from '../config.js';

type ProxySettings = AgentConfig['proxy'];

/**
 * Whether NO_PROXY exempts this URL: `*` exempts everything; an entry matches the host itself and its
 * subdomains (`example.com`, `.example.com`, `*.example.com`), optionally only on one port (`host:8080`).
 */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { host: entryHost, port: entryPort } = parseEntry(entry);
    if (entryPort && entryPort !== port) continue;
    if (host === entryHost || host.endsWith(`.${entryHost}`)) return true;
  }
  return false;
}

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address; a leading `.` or `*.` is dropped. */
function parseEntry(entry: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] };
  if ((entry.match(/:/g) ?? []).length > 1) return { host: entry };
  const [host = '', port] = entry.split(':');
  return { host: host.replace(/^\*?\./, ''), port };
}

/** The proxy for a URL: HTTPS_PROXY for https/wss, HTTP_PROXY for http/ws, none when NO_PROXY exempts it. */
export function proxyFor(url: URL, proxy: ProxySettings): string | undefined {
  if (bypassesProxy(url, proxy.noProxy)) return undefined;
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  return secure ? (proxy.httpsProxy ?? proxy.httpProxy) : proxy.httpProxy;
}

let ProxyAgentClass: typeof HttpsProxyAgent | undefined;

/**
 * Loads the WebSocket's proxy agent when a proxy is set, before the first webSocketAgent: its package imports
 * node:http as an ES module, which loads Node's own copy of undici (≈ 0.1 s and 13 MB on Node.js 24).
 */
export async function loadProxySupport(proxy: ProxySettings): Promise<void> {
  if (proxy.httpsProxy || proxy.httpProxy)
    ProxyAgentClass ??= (await import('https-proxy-agent')).HttpsProxyAgent;
}

/** An agent for the WebSocket upgrade through the proxy (CONNECT), or undefined to connect directly. */
export function webSocketAgent(url: URL, proxy: ProxySettings): HttpsProxyAgent<string> | undefined {
  const through = proxyFor(url, proxy);
  if (!through) return undefined;
  if (!ProxyAgentClass) throw new Error('a proxy is set but loadProxySupport was not awaited');
  return new ProxyAgentClass(through);
}

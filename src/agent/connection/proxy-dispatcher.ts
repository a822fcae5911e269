import { Agent, Dispatcher, ProxyAgent } from 'undici';
import type { AgentConfig } from '../config.js';
import { proxyFor } from './proxy.js';

type ProxySettings = AgentConfig['proxy'];

/**
 * undici's dispatcher for HTTP calls to the control plane: per request origin, through the proxy `proxyFor` names
 * (a ProxyAgent, one per proxy) or directly (an Agent). The WebSocket takes the same choice (webSocketAgent), so
 * NO_PROXY means one thing for both.
 */
export class ProxyDispatcher extends Dispatcher {
  private readonly direct = new Agent();
  private readonly proxies = new Map<string, ProxyAgent>();

  constructor(private readonly proxy: ProxySettings) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.dispatcherFor(new URL(String(options.origin))).dispatch(options, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([this.direct, ...this.proxies.values()].map((d) => d.close()));
  }

  override async destroy(): Promise<void> {
    await Promise.all([this.direct, ...this.proxies.values()].map((d) => d.destroy()));
  }

  private dispatcherFor(origin: URL): Dispatcher {
    const through = proxyFor(origin, this.proxy);
    if (!through) return this.direct;
    let agent = this.proxies.get(through);
    if (!agent) {
      agent = new ProxyAgent(through);
      this.proxies.set(through, agent);
    }
    return agent;
  }
}

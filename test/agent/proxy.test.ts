import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import {
  bypassesProxy,
  loadProxySupport,
  proxyFor,
  webSocketAgent,
} from '../../src/agent/connection/proxy.js';
import { ProxyDispatcher } from '../../src/agent/connection/proxy-dispatcher.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { startHttpServer } from '../support/http-servers.js';
import { apiCheckAt, completed, FAST_RUNS, trigger } from '../support/runs.js';
import {
  type CreatedLocation,
  createApiCheck,
  createLocation,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/** A forward proxy on loopback: CONNECT tunnels and absolute-form requests, each one recorded. */
async function startProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const upstream = request(req.url ?? '', { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('proxy settings', () => {
  it('NO_PROXY exempts hosts, their subdomains and host:port entries', () => {
    const url = (u: string) => new URL(u);
    expect(bypassesProxy(url('https://api.internal/x'), 'localhost,.internal')).toBe(true);
    expect(bypassesProxy(url('https://internal/x'), '*.internal')).toBe(true);
    expect(bypassesProxy(url('https://internal.example.test/x'), 'example.test')).toBe(true);
    expect(bypassesProxy(url('https://notexample.test/x'), 'example.test')).toBe(false);
    expect(bypassesProxy(url('http://127.0.0.1:8080/'), '127.0.0.1:9090')).toBe(false);
    expect(bypassesProxy(url('http://127.0.0.1:8080/'), '127.0.0.1:8080')).toBe(true);
    expect(bypassesProxy(url('http://[::1]:8080/'), '::1')).toBe(true);
    expect(bypassesProxy(url('http://anything/'), '*')).toBe(true);
    expect(proxyFor(url('wss://cp.test/'), { httpsProxy: 'http://p:1', httpProxy: 'http://q:2' })).toBe(
      'http://p:1',
    );
    expect(proxyFor(url('ws://cp.test/'), { httpsProxy: 'http://p:1', httpProxy: 'http://q:2' })).toBe(
      'http://q:2',
    );
  });
});

describe('NO_PROXY: one matcher for the WebSocket and the HTTP calls to the control plane', () => {
  it('sends an HTTP call and the WebSocket the same way for the same entries', async () => {
    const proxy = await startProxy();
    const target = createServer((_req, res) => res.end('ok'));
    const sockets = new WebSocketServer({ server: target });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    const port = (target.address() as AddressInfo).port;
    const tunnel = `CONNECT 127.0.0.1:${port}`;
    /** Whether an HTTP call and a WebSocket to the target went through the proxy, with these settings. */
    const routes = async (noProxy: string | undefined) => {
      const settings = { httpProxy: proxy.url, noProxy };
      await loadProxySupport(settings);
      const dispatcher = new ProxyDispatcher(settings);
      proxy.seen.length = 0;
      const answer = await undiciRequest(`http://127.0.0.1:${port}/`, { dispatcher });
      expect(await answer.body.text()).toBe('ok');
      await dispatcher.close();
      const http = proxy.seen.includes(tunnel);

      proxy.seen.length = 0;
      const url = new URL(`ws://127.0.0.1:${port}/`);
      const ws = new WebSocket(url, { agent: webSocketAgent(url, settings) });
      await once(ws, 'open');
      ws.close();
      await once(ws, 'close');
      const webSocket = proxy.seen.includes(tunnel);
      return { http, webSocket };
    };
    try {
      const cases: Array<[string | undefined, boolean]> = [
        [undefined, true],
        ['127.0.0.1', false],
        [`127.0.0.1:${port}`, false],
        ['127.0.0.1:1', true],
        ['.0.0.1', false],
        ['localhost, 127.0.0.10', true],
        // undici's own matcher (EnvHttpProxyAgent) knows `*` only as the whole value: it proxied here.
        ['vantage.invalid,*', false],
      ];
      for (const [noProxy, proxied] of cases) {
        expect(await routes(noProxy), `NO_PROXY=${noProxy}`).toEqual({ http: proxied, webSocket: proxied });
        expect(proxyFor(new URL(`http://127.0.0.1:${port}/`), { httpProxy: proxy.url, noProxy })).toBe(
          proxied ? proxy.url : undefined,
        );
      }
    } finally {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      target.closeAllConnections();
      target.close();
      await proxy.close();
    }
  });
});

describe('agent: traffic to the control plane through a proxy', () => {
  let server: TestServer;
  let location: CreatedLocation;
  let agent: TestAgent | null = null;
  beforeAll(async () => {
    server = await startTestServer('pglite', { runs: FAST_RUNS });
    location = await createLocation(server, 'behind-proxy');
  });
  afterAll(async () => {
    await agent?.agent.stop();
    await server?.close();
  });

  it('connects and delivers results through HTTP_PROXY; NO_PROXY sends them directly', async () => {
    const proxy = await startProxy();
    const target = await startHttpServer((_req, res) => res.end('ok'));
    const runThere = async () => {
      const check = await createApiCheck(
        server,
        apiCheckAt(target.url('/'), { privateLocations: ['behind-proxy'] }),
      );
      const [sessionId] = await trigger(server, [check]);
      expect((await completed(server, sessionId as string)).status).toBe('PASSED');
    };
    try {
      agent = await startTestAgent({ url: server.url, key: location.key }, { HTTP_PROXY: proxy.url });
      await runThere();
      const origin = `127.0.0.1:${server.port}`;
      // One tunnel for the WebSocket, one for the result upload (undici tunnels plain HTTP too).
      await waitFor('two tunnels', () => proxy.seen.filter((s) => s === `CONNECT ${origin}`).length >= 2);
      // The check itself does not go through the proxy.
      expect(proxy.seen.every((s) => s === `CONNECT ${origin}`)).toBe(true);
      await agent.agent.stop();

      proxy.seen.length = 0;
      agent = await startTestAgent(
        { url: server.url, key: location.key },
        { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      );
      await runThere();
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
      await target.close();
    }
  });
});

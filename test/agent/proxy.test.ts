import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/agent/connection/proxy.js';
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

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small web app on loopback for the examples and `npm start`, so a newcomer's first checks have something
 * real to call on a machine with no internet.
 */
export interface DemoTarget {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DEMO_USER = 'demo';
const DEMO_PASSWORD = 'demo-password';

function handle(server: Server): void {
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://demo');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (url.pathname) {
      case '/':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>Demo shop</title><h1>Welcome to the demo shop</h1>');
        return;
      case '/api/health':
        json(200, {
          status: 'ok',
          version: '1.4.2',
          dependencies: [
            { name: 'db', up: true },
            { name: 'cache', up: true },
          ],
        });
        return;
      case '/api/products':
        json(200, {
          items: [
            { id: 1, name: 'Lamp', price: 25 },
            { id: 2, name: 'Chair', price: 80 },
          ],
        });
        return;
      case '/api/orders':
        if (req.method !== 'POST') return json(405, { error: 'use POST' });
        req.resume();
        req.on('end', () => json(201, { id: 'order-1', status: 'created' }));
        return;
      case '/api/account': {
        const expected = `Basic ${Buffer.from(`${DEMO_USER}:${DEMO_PASSWORD}`).toString('base64')}`;
        if (req.headers.authorization !== expected) return json(401, { error: 'unauthorized' });
        json(200, { user: DEMO_USER });
        return;
      }
      case '/slow': {
        const delay = Math.min(Number(url.searchParams.get('ms') ?? 1000), 10_000);
        setTimeout(() => json(200, { waited: delay }), delay);
        return;
      }
      case '/api/checkout':
        // Down one minute in every three: a check of it fails now and then, and recovers.
        if (new Date().getUTCMinutes() % 3 === 0)
          return json(503, { error: 'checkout is down for a moment' });
        json(200, { status: 'ok' });
        return;
      case '/alerts':
        // The demo's alert receiver: `vantage dev` subscribes a webhook channel to it and prints what arrives.
        if (req.method !== 'POST') return json(405, { error: 'use POST' });
        req.resume();
        req.on('end', () => json(200, { received: true }));
        return;
      case '/old-home':
        res.writeHead(301, { location: '/' });
        res.end();
        return;
      default:
        json(404, { error: 'not found' });
    }
  });
}

export async function startDemoTarget(port = 0, host = '127.0.0.1'): Promise<DemoTarget> {
  const server = createServer();
  handle(server);
  server.listen(port, host);
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

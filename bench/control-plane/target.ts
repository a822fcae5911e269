/** The monitored service of the real agent's checks: answers 200 at once and notes when each check's request came. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ArrivalTarget {
  /** The URL of check number `index`: `?c=<index>`, so each arrival names its check. */
  url(index: number): string;
  /** Arrival times (epoch ms) by check number, in order. */
  readonly arrivals: Map<number, number[]>;
  close(): Promise<void>;
}

export async function startArrivalTarget(): Promise<ArrivalTarget> {
  const arrivals = new Map<number, number[]>();
  const server = createServer((req, res) => {
    const at = Date.now();
    const index = Number(/[?&]c=(\d+)/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (Number.isInteger(index)) {
      const list = arrivals.get(index);
      if (list) list.push(at);
      else arrivals.set(index, [at]);
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (index) => `http://127.0.0.1:${port}/?c=${index}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

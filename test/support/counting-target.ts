import { type ReceivedRequest, receiveRequest, startHttpServer, type TestServer } from './http-servers.js';

export interface SeenRequest extends ReceivedRequest {
  /** The client went away before the answer (a cancelled or killed run). */
  abandoned: boolean;
}

/**
 * A monitored service on loopback that counts what reaches it: `?ms=N` answers after N ms, `?hold` waits until
 * the test releases it; anything else answers 200 `ok` at once. Every request is kept, in order.
 */
export interface CountingTarget extends TestServer {
  seen: SeenRequest[];
  /** Requests whose path and query contain `part`. */
  count(part: string): number;
  /** Requests being answered now, and the most there ever were at once. */
  inFlight(): number;
  maxInFlight(): number;
  /** Answers the held requests whose path and query contain `part` (all by default). */
  release(part?: string): void;
  /** Requests held now (whose path and query contain `part`). */
  held(part?: string): number;
}

export async function startCountingTarget(): Promise<CountingTarget> {
  const seen: SeenRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let waiting: { url: string; answer: () => void }[] = [];
  const server = await startHttpServer(async (req, res) => {
    const request: SeenRequest = { ...(await receiveRequest(req)), abandoned: false };
    seen.push(request);
    const url = new URL(request.url, 'http://target');
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let timer: NodeJS.Timeout | undefined;
    const answer = () => {
      clearTimeout(timer);
      waiting = waiting.filter((w) => w.answer !== answer);
      if (res.writableEnded || res.destroyed) return;
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    };
    res.on('close', () => {
      if (res.writableEnded) return;
      request.abandoned = true;
      clearTimeout(timer);
      waiting = waiting.filter((w) => w.answer !== answer);
      inFlight--;
    });
    if (url.searchParams.has('hold')) waiting.push({ url: request.url, answer });
    else timer = setTimeout(answer, Number(url.searchParams.get('ms') ?? 0));
  });
  return {
    ...server,
    seen,
    count: (part) => seen.filter((r) => r.url.includes(part)).length,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    release(part = '') {
      for (const held of waiting.filter((w) => w.url.includes(part))) held.answer();
    },
    held: (part = '') => waiting.filter((w) => w.url.includes(part)).length,
  };
}

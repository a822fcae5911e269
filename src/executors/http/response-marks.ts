import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { HopTiming } from './timings.js';

/**
 * The moments undici parses a response's headers and its last byte, taken from its diagnostics
 * channels (documented: docs/api/DiagnosticsChannel.md) rather than when `request()` resolves, which
 * comes a few tenths of a millisecond later. A request is tied to its hop through the socket our
 * connector opened for it.
 */
const hopOfSocket = new WeakMap<object, () => HopTiming>();
const hopOfRequest = new WeakMap<object, HopTiming>();
let subscribed = false;

function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request: object; socket: object };
    const hop = hopOfSocket.get(socket)?.();
    if (hop) hopOfRequest.set(request, hop);
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const hop = hopOfRequest.get(request);
    if (hop && response.statusCode >= 200) hop.response ??= performance.now();
  });
  subscribe('undici:request:trailers', (message) => {
    const hop = hopOfRequest.get((message as { request: object }).request);
    if (hop) hop.complete ??= performance.now();
  });
}

/** Marks the responses sent over `socket` on the hop being sent at the time. */
export function markResponsesOn(socket: Socket, currentHop: () => HopTiming): void {
  subscribeOnce();
  hopOfSocket.set(socket, currentHop);
}

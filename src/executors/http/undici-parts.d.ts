/**
 * The modules of the undici package this executor uses, imported on their own: the package's index loads all of
 * undici (fetch, WebSocket, cookies, caches: ≈ 0.1 s and 15 MB at start on Node.js 24). The index also copies the
 * request API onto every dispatcher; without it, `request` is called with the client as `this`.
 */
declare module 'undici/lib/dispatcher/client.js' {
  import { Client } from 'undici';
  export default Client;
}

declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export default buildConnector;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}

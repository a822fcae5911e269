import { useEffect } from 'preact/hooks';
import type { CheckStatus } from './types.js';

/** Calls `onStatus` with each check status the server sends as it changes; the browser reconnects a dropped stream. */
export function useLiveStatuses(onStatus: (status: CheckStatus) => void, onReconnect: () => void): void {
  useEffect(() => {
    const source = new EventSource('/v1/check-statuses/events');
    let opened = false;
    source.addEventListener('status', (event) => onStatus(JSON.parse((event as MessageEvent<string>).data)));
    // After a drop, what changed meanwhile was not sent: read it all again.
    source.addEventListener('open', () => {
      if (opened) onReconnect();
      opened = true;
    });
    return () => source.close();
  }, []);
}

/** What a row sets up through the public API: one private location and its key, then N API checks on it. */
import { processApi } from '../../test/support/server-process.js';

export interface ApiKey {
  accountId: string;
  apiKey: string;
}

export type Api = (method: string, path: string, body?: unknown) => Promise<any>;

/** Calls the API of the server on `port`; anything but the expected status is an error naming the call. */
export function apiOf(port: number, key: ApiKey): Api {
  return async (method, path, body) => {
    let answer = await processApi(port, key, method, path, body);
    while (answer.status === 429) {
      await new Promise((resolve) =>
        setTimeout(resolve, 1000 * (answer.body.attributes?.retryAfterSeconds ?? 1)),
      );
      answer = await processApi(port, key, method, path, body);
    }
    if (answer.status >= 300) {
      throw new Error(
        `${method} ${path}: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`,
      );
    }
    return answer.body;
  };
}

export const LOCATION = 'bench';

export async function createLocation(api: Api): Promise<{ id: string; key: string }> {
  const body = await api('POST', '/v1/private-locations', { name: 'Bench', slugName: LOCATION });
  return { id: body.id, key: body.keys[0].rawKey };
}

/** When the checks run: every 10 s (frequency 0, offset 10), or once a day at an hour that is 12 hours away. */
export function scheduleFields(idle: boolean): { frequency: number; frequencyOffset: number } {
  if (!idle) return { frequency: 0, frequencyOffset: 10 };
  // frequency 1440: the offset counts whole hours after midnight UTC (24 = none).
  const hour = (new Date().getUTCHours() + 12) % 24;
  return { frequency: 1440, frequencyOffset: hour === 0 ? 24 : hour };
}

/** Creates `count` activated API checks, a few requests at a time; answers their ids, by number. */
export async function createChecks(
  api: Api,
  count: number,
  fields: { frequency: number; frequencyOffset: number },
  url: (index: number) => string,
  progress: (made: number) => void,
): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  let made = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const body = await api('POST', '/v1/checks?autoAssignAlerts=false', {
        checkType: 'API',
        name: `bench ${index}`,
        activated: true,
        ...fields,
        locations: [],
        privateLocations: [LOCATION],
        request: { method: 'GET', url: url(index) },
      });
      ids[index] = body.id;
      made += 1;
      if (made % 1000 === 0) progress(made);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** Waits until the location shows `count` connected agents. */
export async function agentsConnected(api: Api, locationId: string, count: number, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const location = await api('GET', `/v1/private-locations/${locationId}`);
    if (location.agents?.connected && location.agents.count >= count) return;
    if (Date.now() > end) throw new Error(`no agent connected within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs queued at the bench's location and due now, from the server's Prometheus endpoint (open by default). */
export async function queuedRuns(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('vantage_location_queue_size{') && l.includes(`location="${LOCATION}"`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intervalAt, scheduleOf } from '../../../src/checks/schedule.js';
import { PROTOCOL_LIMITS } from '../../../src/protocol/index.js';
import { CLAIM_SOON_MS } from '../../../src/server/scheduler/tick.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
} from '../../support/server.js';
import { TestAgent } from './agent-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * On the real clock: an interval claimed before it starts is handed to a connected agent without waiting for the
 * gateway's poll (set here to ten minutes, so only the wake-ups can send it): to an agent of protocol version 2
 * when it starts, not before; to one of version 3 within `startAheadMs` before, with the wait until its start.
 */
describe.each(STORES)('an interval claimed early (%s)', (store) => {
  let server: TestServer;
  const agents: TestAgent[] = [];

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, dispatchPollMs: 600_000 } });
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await server?.close();
  });

  it.each([2, 3])('reaches an agent of protocol version %i in time', async (protocolVersion) => {
    const slug = `early-v${protocolVersion}`;
    const location = await createLocation(server, slug);
    const checkId = await createApiCheck(server, {
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: [slug],
    });
    const agent = await TestAgent.connect(server.url, location.key, server.accountId, { protocolVersion });
    agents.push(agent);
    agent.credit(10);
    const schedule = scheduleOf(0, 10, checkId);
    await server.server.runs.scheduleTick(); // the current interval: at once
    expect((await agent.next('run')).check).toMatchObject({ id: checkId });
    const latestClaim = async () => {
      const [row] = await server.server.runs.db.query<{ not_before: Date }>(
        'SELECT not_before FROM runs WHERE check_id = $1 ORDER BY not_before DESC LIMIT 1',
        [checkId],
      );
      return row?.not_before.getTime() ?? 0;
    };

    // Into the lead of the interval after the last one claimed, with time to spare before it starts: just inside
    // the lead, so that a slow tick on a loaded machine still claims the interval before it starts.
    const into = 200;
    let start = intervalAt(schedule, new Date(await latestClaim())).start.getTime() + schedule.periodMs;
    while (start - Date.now() < CLAIM_SOON_MS - into) {
      // Due already (a slow start) or too close to claim inside its lead: it runs first, then aim at the next.
      await sleep(Math.max(0, start - Date.now()));
      await server.server.runs.scheduleTick();
      expect((await agent.next('run')).check).toMatchObject({ id: checkId });
      start = intervalAt(schedule, new Date(await latestClaim())).start.getTime() + schedule.periodMs;
    }
    await sleep(start - CLAIM_SOON_MS + into - Date.now());
    await server.server.runs.scheduleTick();
    expect(await latestClaim()).toBe(start);

    // A wait, not a goal: only the wake-ups can send it (the poll is ten minutes away).
    const run = await agent.next('run', 30_000);
    const arrived = Date.now();
    expect(run.check).toMatchObject({ id: checkId });
    if (protocolVersion === 2) {
      expect(arrived).toBeGreaterThanOrEqual(start);
      expect(run.startInMs).toBeUndefined();
    } else {
      // Sent at the start of the second that holds its start, saying how long to wait: the two add up to it.
      expect(arrived).toBeLessThan(start);
      expect(arrived).toBeGreaterThanOrEqual(start - PROTOCOL_LIMITS.startAheadMs);
      expect(Math.abs(arrived + (run.startInMs ?? 0) - start)).toBeLessThan(100);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../../../src/server/retention/job.js';
import { capturingLogger, type LogCapture } from '../../support/agent.js';
import { STORES, startTestServer, TestClock, type TestServer } from '../../support/server.js';
import type { TestAgent } from '../runs/agent-client.js';
import { heldCheck, storeResult } from './support.js';

const WARNING = 'the embedded PGlite store holds more runs than it suits';

describe.each(STORES)('a store that holds more runs than it suits (%s)', (store) => {
  let server: TestServer;
  let agent: TestAgent;
  let logs: LogCapture;
  const clock = new TestClock('2030-02-01T10:00:00.000Z');
  const warnings = () => logs.entries().filter((e) => String(e.msg).startsWith(WARNING));

  beforeAll(async () => {
    const captured = capturingLogger('WARN');
    logs = captured.logs;
    // Five runs against an advised three: what ten million would be to a real store.
    server = await startTestServer(store, {
      runs: { background: false, clock: clock.now, pgliteAdvisedRuns: 3 },
      logger: captured.logger as never,
    });
    const held = await heldCheck(server, 'store-size');
    agent = held.agent;
    for (let i = 0; i < 5; i += 1) await storeResult(server, clock, agent, held.target, { responseTime: 10 });
    // The server's upkeep counts the runs so (src/server/store/analyze.ts); here at once.
    await server.server.runs.db.query('ANALYZE runs');
  });
  afterAll(async () => {
    agent?.close();
    await server?.close();
  });

  it.runIf(store === 'pglite')(
    'warns once a day that VACUUMs will hold the server, with what to do about it',
    async () => {
      const outcome = await server.server.runs.retentionTick();
      expect(outcome.pgliteRunsAboveAdvised).toBe(5);
      await server.server.runs.retentionTick();
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toMatchObject({
        level: 'warn',
        storedRuns: 5,
        advisedRuns: 3,
        retentionDays: 30,
      });
      expect(String(warnings()[0]?.msg)).toContain('Lower VANTAGE_RESULT_RETENTION_DAYS');
      expect(String(warnings()[0]?.msg)).toContain('PostgreSQL (DATABASE_URL)');

      clock.set('2030-02-02T10:00:00.000Z');
      await server.server.runs.retentionTick();
      expect(warnings()).toHaveLength(2);
    },
  );

  it('says nothing of a store within what it suits, nor of PostgreSQL', async () => {
    const settings = { retentionDays: 30, dataDir: server.server.runs.dataDir, pgliteAdvisedRuns: 5 };
    expect(
      (await runRetention(server.server.runs.db, clock.now(), settings)).pgliteRunsAboveAdvised,
    ).toBeNull();
    if (store === 'postgres') {
      const outcome = await server.server.runs.retentionTick();
      expect(outcome.pgliteRunsAboveAdvised).toBeNull();
      expect(warnings()).toHaveLength(0);
    }
  });
});

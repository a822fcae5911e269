import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import { capturingLogger } from '../../support/agent.js';
import { apiResult } from '../runs/agent-client.js';
import { AlertBench } from './support.js';

/** Alerting runs in the transaction that records a session, but its failure never costs the session its result. */
describe('a failure of alerting itself', () => {
  let bench: AlertBench;
  const { logger, logs } = capturingLogger('ERROR');

  beforeAll(async () => {
    bench = await AlertBench.start('pglite', 'isolation', { logger: logger as never });
  });
  afterAll(async () => {
    await bench?.close();
  });

  it('keeps the result and the session’s status, and logs why', async () => {
    const channel = await bench.channel('WEBHOOK', { name: 'closed', url: 'http://127.0.0.1:9/' });
    const check = await bench.check([channel]);
    const db = bench.server.server.context.db;
    // A store that lost the alert states (a botched restore): alerting cannot work.
    await db.query('ALTER TABLE alert_states RENAME TO alert_states_lost');
    try {
      const sessionId = await bench.session(check, 'FAILED');
      const session = await bench.server.api('GET', `/v1/check-sessions/${sessionId}`);
      expect(session.body).toMatchObject({
        status: 'FAILED',
        results: [expect.objectContaining({ hasErrors: true })],
      });
      expect(logs.text).toContain('alerting failed for a finished session; its result is kept');
      expect(logs.text).toContain(sessionId);
    } finally {
      await db.query('ALTER TABLE alert_states_lost RENAME TO alert_states');
    }
  });

  it('costs only the session whose alerting failed when sessions end together, in one batch of results', async () => {
    const channel = await bench.channel('WEBHOOK', { name: 'closed', url: 'http://127.0.0.1:9/' });
    const [broken, fine] = [await bench.check([channel]), await bench.check([channel])] as [string, string];
    const db = bench.server.server.context.db;
    // The store refuses the alert state of one check only (a broken row): its alerting cannot work.
    await db.exec(`
      CREATE FUNCTION refuse_alert_state() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.check_id = '${broken}' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_alert_state BEFORE INSERT OR UPDATE ON alert_states
        FOR EACH ROW EXECUTE FUNCTION refuse_alert_state();
    `);
    try {
      const created = await bench.server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [broken, fine] },
      });
      const sessions = new Map<string, string>(
        created.body.checkSessions.map((s: { checkId: string; checkSessionId: string }) => [
          s.checkId,
          s.checkSessionId,
        ]),
      );
      const runs = await leaseRuns(db, {
        accountId: bench.server.accountId,
        location: bench.location.slugName,
        agentId: 'alert-agent',
        credits: { light: 10, browser: 0 },
        kinds: ['API'],
        now: bench.clock.now(),
        leaseTtlMs: 45_000,
      });
      const failed = apiResult({ failed: 'connect ECONNREFUSED' });
      const answer = await bench.agent.postBatch(
        runs.map((run) => bench.agent.upload({ runId: run.id, attempt: run.attempt } as never, failed)),
      );
      expect(answer.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([200, 200]);
      for (const id of sessions.values()) {
        expect((await bench.server.api('GET', `/v1/check-sessions/${id}`)).body.status).toBe('FAILED');
      }
      const stateOf = async (checkId: string) =>
        (await bench.server.api('GET', `/v1/checks/${checkId}/alert-state`)).body.state;
      expect([await stateOf(broken), await stateOf(fine)]).toEqual(['PASSING', 'FAILING']);
      expect(logs.text).toContain(sessions.get(broken));
      expect(logs.text).not.toContain(sessions.get(fine));
    } finally {
      await db.exec('DROP TRIGGER refuse_alert_state ON alert_states; DROP FUNCTION refuse_alert_state();');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../../support/agent.js';
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
});

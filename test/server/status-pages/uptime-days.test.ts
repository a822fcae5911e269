import { describe, expect, it } from 'vitest';
import { dailyCounts } from '../../../src/server/status-pages/public/model.js';
import { STORES } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

describe.each(STORES)('the uptime of each day on status pages and badges (%s)', (store) => {
  it('counts the day before from its closed hours until its day roll-up exists: its bar does not go blank after midnight', async () => {
    const bench = await AlertBench.start(store, 'midnight');
    try {
      const check = await bench.check([], { activated: true });
      bench.clock.set('2026-11-20T22:10:00.000Z');
      await bench.session(check, 'PASSED');
      await bench.session(check, 'FAILED');
      // 22:00–23:00 is rolled up 5 minutes after it ends; the day only once its last hour is, after 00:05.
      bench.clock.set('2026-11-21T00:03:00.000Z');
      const { runs } = bench.server.server;
      await runs.retentionTick();
      const from = new Date('2026-09-01T00:00:00.000Z');
      const read = () => dailyCounts(runs.db, bench.server.accountId, [check], from, bench.clock.now());
      expect(await read()).toEqual([{ check_id: check, day: '2026-11-20', count: 2, failures: 1 }]);

      // Once the day is rolled up, it is counted once, from its day roll-up.
      bench.clock.set('2026-11-21T00:10:00.000Z');
      await runs.retentionTick();
      expect(await read()).toEqual([{ check_id: check, day: '2026-11-20', count: 2, failures: 1 }]);
    } finally {
      await bench.close();
    }
  });
});

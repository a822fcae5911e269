import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrlOf, STORES, startTestServer, type TestServer } from '../../support/server.js';

/** The probes an orchestrator sends to the control plane: no key needed, readiness follows the store. */
describe.each(STORES)('control-plane health probes (%s)', (store) => {
  let server: TestServer;
  afterAll(async () => {
    await server?.close().catch(() => {});
  });

  it('answers liveness and readiness while the store answers, without a key', async () => {
    server = await startTestServer(store);
    const live = await fetch(`${server.url}/-/liveness`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${server.url}/-/readiness`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', store: 'ok' });
  });

  it.runIf(store === 'postgres')(
    'turns not ready when its PostgreSQL goes away, and stays alive',
    async () => {
      const url = new URL(databaseUrlOf(server));
      const name = url.pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      // Every connection of the server is cut, and no new one is let in.
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      try {
        const ready = await fetch(`${server.url}/-/readiness`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ status: 'unavailable', store: expect.any(String) });
        expect((await fetch(`${server.url}/-/liveness`)).status).toBe(200);
      } finally {
        await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
        await admin.end();
      }
      expect((await fetch(`${server.url}/-/readiness`)).status).toBe(200);
    },
  );

  it.runIf(store === 'postgres')(
    'is ready at the first probe after its PostgreSQL connections were cut (a database restart)',
    async () => {
      const name = new URL(databaseUrlOf(server)).pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      try {
        for (let i = 0; i < 5; i++) {
          // The server's pooled connections are cut, so the probe may find one of them dead.
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
            name,
          ]);
          expect((await fetch(`${server.url}/-/readiness`)).status).toBe(200);
        }
      } finally {
        await admin.end();
      }
    },
  );
});

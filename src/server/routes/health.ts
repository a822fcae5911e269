import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';

/** How long the store may take to answer a readiness probe. */
const STORE_PROBE_MS = 2000;

/**
 * The probes an orchestrator sends (not part of the public API, like /metrics): `/-/liveness` answers while the
 * process serves; `/-/readiness` only while its store answers too, so a replica that lost PostgreSQL gets no
 * traffic until it is back.
 */
export function registerHealthRoutes(app: FastifyInstance, { db, version, log }: ServerContext): void {
  app.get('/-/liveness', { config: { auth: 'none' } }, async () => ({ status: 'ok', version }));

  app.get('/-/readiness', { config: { auth: 'none' } }, async (_request, reply) => {
    // Asked twice before the answer is no: a pooled connection that PostgreSQL cut (a restart, a terminated
    // backend) fails the first query it is given, and the pool then opens a fresh one.
    const probe = () => db.query('SELECT 1');
    const store = await storeAnswers(() => probe().catch(probe), log);
    return reply
      .code(store === null ? 200 : 503)
      .send({ status: store === null ? 'ok' : 'unavailable', store: store ?? 'ok', version });
  });
}

/** Null when the store answered in time, else why not. */
async function storeAnswers(probe: () => Promise<unknown>, log: FastifyBaseLogger): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${STORE_PROBE_MS} ms`), STORE_PROBE_MS);
  });
  try {
    return await Promise.race([probe().then(() => null), late]);
  } catch (error) {
    // The probe is open to anyone: the store's own message (hosts, user names) goes to the log, not the answer.
    log.warn({ err: error }, 'readiness: the store failed');
    return 'the store failed (see the log)';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What one scheduler tick costs (issue 14): the time of a tick that schedules 3,000 due checks (sessions and runs
 * made), and of an idle tick over 10,000 checks when none is due, on PGlite and (with TEST_DATABASE_URL) on
 * PostgreSQL. The ticks are called by hand on a real server with a hand-moved clock.
 * Goal: 3,000 due checks scheduled in under 1 s (all of them are due at the same instant: the lag of the last),
 * and an idle tick under 5 ms.
 * Run: npx tsx bench/scheduler-tick.ts
 */
import { createBodySchema } from '../src/server/checks/schemas.js';
import { createCheck } from '../src/server/checks/service.js';
import { copiesOfCheck } from '../test/support/bulk-checks.js';
import {
  createLocation,
  STORES,
  type Store,
  startTestServer,
  TestClock,
  type TestServer,
} from '../test/support/server.js';
import { median } from './support.js';

const DUE = 3000;
const IDLE = 10_000;
const DUE_GOAL_MS = 1000;
const IDLE_GOAL_MS = 5;

/** `count` checks every 10 s: one made through the check service, the others copies of it. */
async function addChecks(server: TestServer, count: number): Promise<void> {
  const check = createBodySchema('API').parse({
    checkType: 'API',
    name: 'bench',
    frequency: 0,
    frequencyOffset: 10,
    privateLocations: ['bench-loc'],
    request: { url: 'http://127.0.0.1:9/health' },
  });
  const db = server.server.runs.db;
  const stored = await createCheck(db, server.accountId, check as Record<string, unknown>, {
    autoAssignAlerts: false,
    now: new Date(),
  });
  await copiesOfCheck(db, server.accountId, stored.id, count - 1);
}

/** Wall time and this process's CPU time (user + system) of `fn`, in ms. */
async function timed(fn: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 };
}

async function sessionCount(server: TestServer): Promise<number> {
  const [row] = await server.server.runs.db.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM check_sessions',
  );
  return Number(row?.n ?? 0);
}

async function measure(store: Store): Promise<{ due: number; idle: number }> {
  const clock = new TestClock('2026-04-01T10:00:00.500Z');
  const server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  try {
    await createLocation(server, 'bench-loc');
    await addChecks(server, DUE);
    const tick = () => server.server.runs.scheduleTick();
    await tick(); // the first interval: warms the code paths (and the store's caches)
    const dueTimes: number[] = [];
    const dueCpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(10_000);
      const before = await sessionCount(server);
      const { wall, cpu } = await timed(tick);
      dueTimes.push(wall);
      dueCpu.push(cpu);
      const made = (await sessionCount(server)) - before;
      if (made !== DUE) throw new Error(`a due tick made ${made} sessions, not ${DUE}`);
    }
    await addChecks(server, IDLE - DUE);
    clock.advance(10_000);
    await tick(); // every check claimed for this interval
    const idleTimes: number[] = [];
    for (let i = 0; i < 30; i++) {
      clock.advance(100);
      idleTimes.push((await timed(tick)).wall);
    }
    const due = median(dueTimes);
    const idle = median(idleTimes);
    console.log(
      `${store.padEnd(8)}  tick of ${DUE} due checks: ${due.toFixed(0)} ms (median of ${dueTimes.map((t) => t.toFixed(0)).join(', ')};` +
        ` server process CPU ${median(dueCpu).toFixed(0)} ms)` +
        `   idle tick over ${IDLE} checks: ${idle.toFixed(2)} ms (median of ${idleTimes.length})`,
    );
    return { due, idle };
  } finally {
    await server.close();
  }
}

let missed = false;
for (const store of STORES) {
  const { due, idle } = await measure(store);
  if (due > DUE_GOAL_MS || idle > IDLE_GOAL_MS) missed = true;
}
console.log(
  missed
    ? `missed: a due tick must take < ${DUE_GOAL_MS} ms, an idle one < ${IDLE_GOAL_MS} ms`
    : 'goal met on every store',
);
process.exitCode = missed ? 1 : 0;

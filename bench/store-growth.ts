/**
 * Store growth per run (issue 14, item 3): N runs of API checks stored through the control plane's own path
 * (trigger → lease → recordUploadedResult), on PGlite and on PostgreSQL. Measures the bytes per run on disk
 * (PostgreSQL: pg_total_relation_size of every table, indexes and TOAST included; PGlite: its data folder without
 * pg_wal) as written and once compacted (VACUUM FULL, the live data), extrapolated to GiB per million runs and to
 * what a retention of 30 days holds at 30 and 300 runs/s. The result stored is a real one: our HTTP executor's
 * record of a local JSON API (a 1.8 KB body, four assertions, the usual headers).
 * Goal: at most 8 KiB per run compacted, on both stores.
 * Run: npx tsx bench/store-growth.ts   (BENCH_RUNS, default 5000; PostgreSQL from TEST_DATABASE_URL, else
 * scripts/start-test-postgres.sh)
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiCheckSchema, type CheckResult } from '../src/checks/index.js';
import { executeApi } from '../src/executors/http/index.js';
import { toCheckResult } from '../src/executors/run/session.js';
import { leaseRuns } from '../src/server/queue/lease.js';
import { recordUploadedResult } from '../src/server/sessions/record.js';
import type { Db } from '../src/server/store/db.js';
import {
  createApiCheck,
  createLocation,
  type Store,
  startTestServer,
  TestClock,
  type TestServer,
} from '../test/support/server.js';
import { benchContext } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5000);
/** Checks triggered together: one batch of runs is one 10-second interval of this many checks. */
const CHECKS = 50;
const GOAL_BYTES = 8 * 1024;
const GIB = 1024 ** 3;
const RETENTION_DAYS = 30;

/** A JSON API as checks meet them: a status, a few dependencies, a page of items (1.8 KB). */
const BODY = JSON.stringify({
  status: 'ok',
  service: 'orders',
  version: '4.12.3',
  region: 'eu-west-1',
  dependencies: { database: { status: 'ok', latencyMs: 3 }, cache: { status: 'ok', latencyMs: 1 } },
  items: Array.from({ length: 12 }, (_, i) => ({
    id: `ord_${(1000 + i).toString(36)}${i}`,
    customer: `customer-${i * 7}`,
    total: { amount: 1999 + i * 250, currency: 'EUR' },
    status: i % 3 === 0 ? 'shipped' : 'pending',
    createdAt: `2026-04-0${(i % 9) + 1}T10:${String(i).padStart(2, '0')}:00Z`,
  })),
});

async function realisticResult(): Promise<CheckResult> {
  const target = createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      etag: `"${randomUUID()}"`,
      'x-request-id': randomUUID(),
      server: 'nginx',
    });
    response.end(BODY);
  }).listen(0, '127.0.0.1');
  await once(target, 'listening');
  const check = apiCheckSchema.parse({
    name: 'Orders API',
    checkType: 'API',
    request: {
      method: 'GET',
      url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1/orders?limit=12`,
      headers: [{ key: 'accept', value: 'application/json' }],
      assertions: [
        { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
        { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' },
        { source: 'HEADERS', property: 'content-type', comparison: 'CONTAINS', target: 'json' },
        { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '1000' },
      ],
    },
  });
  const attempt = await executeApi(check, benchContext());
  target.close();
  if (attempt.hasErrors || attempt.hasFailures) throw new Error(`the API check failed: ${attempt.error}`);
  return toCheckResult(check, { attempt, timedOut: false, cancelled: false }, 'FINAL', 1, 'bench');
}

/** Bytes of every table, with indexes and TOAST; `check_results` counts all its partitions. */
async function tableBytes(db: Db): Promise<Map<string, number>> {
  const rows = await db.query<{ name: string; bytes: string | number }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  const bytes = new Map<string, number>();
  for (const { name, bytes: b } of rows) {
    const table = name.startsWith('check_results') ? 'check_results' : name;
    bytes.set(table, (bytes.get(table) ?? 0) + Number(b));
  }
  return bytes;
}

async function folderBytes(folder: string, skip: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.name === skip) continue;
    const path = join(folder, entry.name);
    total += entry.isDirectory() ? await folderBytes(path, skip) : (await stat(path)).size;
  }
  return total;
}

interface Sizes {
  /** Per table (PostgreSQL) or the data folder without pg_wal (PGlite). */
  tables: Map<string, number>;
  total: number;
}

async function sizes(server: TestServer, store: Store): Promise<Sizes> {
  const db = server.server.context.db;
  await db.exec('CHECKPOINT');
  const tables = await tableBytes(db);
  const total =
    store === 'pglite'
      ? await folderBytes(server.server.context.config.dataDir, 'pg_wal')
      : [...tables.values()].reduce((a, b) => a + b, 0);
  return { tables, total };
}

/** A private location and CHECKS API checks that run there. */
async function setUp(server: TestServer): Promise<{ location: string; checkIds: string[] }> {
  const location = await createLocation(server, 'bench');
  const checkIds: string[] = [];
  for (let i = 0; i < CHECKS; i++) {
    checkIds.push(
      await createApiCheck(server, {
        name: `Orders API ${i}`,
        privateLocations: [location.slugName],
        activated: false,
        doubleCheck: false,
        retryStrategy: null,
      }),
    );
  }
  return { location: location.slugName, checkIds };
}

async function storeRuns(
  server: TestServer,
  clock: TestClock,
  template: CheckResult,
  { location, checkIds }: { location: string; checkIds: string[] },
  runs: number,
): Promise<void> {
  const db = server.server.context.db;
  for (let done = 0; done < runs; done += CHECKS) {
    clock.advance(10_000);
    const triggered = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: checkIds },
    });
    if (triggered.status !== 201) throw new Error(`trigger: ${triggered.status}`);
    const leased = await leaseRuns(db, {
      accountId: server.accountId,
      location,
      agentId: 'bench',
      credits: { light: CHECKS, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
    for (const run of leased) {
      const responseTime = 20 + Math.random() * 180;
      const startedAt = new Date(clock.now().getTime() - 1000);
      const result = {
        ...template,
        checkResultId: randomUUID(),
        responseTime,
        startedAt: startedAt.toISOString(),
        stoppedAt: new Date(startedAt.getTime() + Math.ceil(responseTime)).toISOString(),
      };
      await recordUploadedResult(
        db,
        { accountId: server.accountId, location },
        {
          runId: run.id,
          attempt: run.attempt,
          agentId: 'bench',
          status: 'PASSED',
          result,
          networkError: false,
        },
        clock.now(),
        server.server.runs.onSessionFinished,
      );
    }
  }
}

interface Measured {
  store: Store;
  written: number;
  compacted: number;
  perTable: [string, number][];
  rollupBytes: number;
}

async function measure(store: Store, template: CheckResult): Promise<Measured> {
  const clock = new TestClock('2030-01-01T10:00:00.000Z');
  const server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  try {
    const db = server.server.context.db;
    await server.server.runs.retentionTick();
    const checks = await setUp(server);
    // Alert states of the checks are made by their first sessions: one round first, outside the measure.
    await storeRuns(server, clock, template, checks, CHECKS);
    await db.exec('VACUUM FULL');
    const before = await sizes(server, store);
    await storeRuns(server, clock, template, checks, RUNS);
    const written = await sizes(server, store);
    await db.exec('VACUUM FULL');
    const compacted = await sizes(server, store);
    const perTable = [...compacted.tables]
      .map(([table, bytes]): [string, number] => [table, (bytes - (before.tables.get(table) ?? 0)) / RUNS])
      .filter(([, bytes]) => bytes >= 1)
      .sort((a, b) => b[1] - a[1]);
    clock.advance(2 * 3_600_000);
    await server.server.runs.retentionTick();
    const [rollup] = await db.query<{ bytes: string | number }>(
      'SELECT avg(pg_column_size(r.*)) AS bytes FROM check_rollups r',
    );
    return {
      store,
      written: (written.total - before.total) / RUNS,
      compacted: (compacted.total - before.total) / RUNS,
      perTable,
      rollupBytes: Number(rollup?.bytes ?? 0),
    };
  } finally {
    await server.close();
  }
}

function postgresUrl(): string | undefined {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const script = fileURLToPath(new URL('../scripts/start-test-postgres.sh', import.meta.url));
  try {
    const line = execFileSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return /TEST_DATABASE_URL=(\S+)/.exec(line)?.[1];
  } catch {
    return undefined;
  }
}

const template = await realisticResult();
console.log(
  `${RUNS} runs of ${CHECKS} API checks; one result record is ${JSON.stringify(template).length} bytes of JSON`,
);
const databaseUrl = postgresUrl();
if (databaseUrl) process.env.TEST_DATABASE_URL = databaseUrl;
const stores: Store[] = databaseUrl ? ['pglite', 'postgres'] : ['pglite'];
if (!databaseUrl)
  console.log('PostgreSQL: not measured (no TEST_DATABASE_URL and no local PostgreSQL to start)');

const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
const gib = (bytes: number) => `${(bytes / GIB).toFixed(2)} GiB`;
let missed = false;
console.log(
  '\n| store | bytes per run as written | compacted | GiB per million runs | 30 days at 30 runs/s | at 300 runs/s |',
);
console.log('|---|---|---|---|---|---|');
const details: string[] = [];
for (const store of stores) {
  const m = await measure(store, template);
  const held = (runsPerSecond: number) => m.compacted * runsPerSecond * 86_400 * (RETENTION_DAYS + 1);
  console.log(
    `| ${store} | ${kib(m.written)} | ${kib(m.compacted)} | ${gib(m.compacted * 1e6)} | ${gib(held(30))} | ${gib(held(300))} |`,
  );
  details.push(
    `${store}: per run ${m.perTable.map(([table, bytes]) => `${table} ${Math.round(bytes)} B`).join(', ')}; ` +
      `a rollup row ${Math.round(m.rollupBytes)} B (25 a day per check and location: ` +
      `${((m.rollupBytes * 25 * 396) / 1024 ** 2).toFixed(2)} MiB per check and location over 13 months, before indexes)`,
  );
  if (m.compacted > GOAL_BYTES) missed = true;
}
console.log(`\n${details.join('\n')}`);
console.log(`\ngoal: at most ${kib(GOAL_BYTES)} per run compacted: ${missed ? 'MISSED' : 'met'}`);
process.exitCode = missed ? 1 : 0;

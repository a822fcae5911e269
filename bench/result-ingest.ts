/**
 * What recording agents' results costs the control plane (issue 14): results of single-location API check sessions
 * (the common case: each result finishes its session and moves its check's alert state), recorded
 *  - through `recordUploadedResult` one by one, and `recordUploadedResults` 100 at a time, on a store that counts
 *    statements (round trips per result) and with the process's CPU per result (on PGlite that includes the store,
 *    on PostgreSQL it is the control plane's alone);
 *  - over HTTP as agents send them: one POST per result four at a time (protocol version 1), or 100 per POST
 *    (version 2, POST /v1/agent/results/batch).
 * On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set (scripts/start-test-postgres.sh).
 * Goal: at most GOAL_BATCH_STATEMENTS statements per result in batches, GOAL_SINGLE_STATEMENTS one by one.
 * Run: npx tsx bench/result-ingest.ts [results per way, default 600] [part of a way's name] [store]
 */
import { AGENT_PATHS, type ResultUpload } from '../src/protocol/index.js';
import { leaseRuns } from '../src/server/queue/lease.js';
import { recordUploadedResult, recordUploadedResults } from '../src/server/sessions/record.js';
import { apiResult } from '../test/server/runs/agent-client.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  type Store,
  startTestServer,
  TestClock,
  type TestServer,
} from '../test/support/server.js';
import { CountingDb } from './counting-db.js';

const RESULTS = Number(process.argv[2] ?? 600);
const CHECKS = 100;
const AGENT_ID = 'bench-agent';
const GOAL_SINGLE_STATEMENTS = 15;
const GOAL_BATCH_STATEMENTS = 0.25;
const WARM_UP = 100;
const BATCH = 100;

interface Figures {
  way: string;
  msPerResult: number;
  cpuMsPerResult: number | null;
  statementsPerResult: number | null;
  /** The most statements per result this way may take. */
  goal?: number;
}

/** A control plane with one location and CHECKS API checks, whose sessions the bench triggers and leases. */
async function setUp(store: Store) {
  const clock = new TestClock();
  const server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  const location = await createLocation(server, 'bench');
  const checkIds: string[] = [];
  for (let i = 0; i < CHECKS; i++) {
    checkIds.push(
      await createApiCheck(server, {
        name: `bench ${i}`,
        privateLocations: [location.slugName],
        activated: false,
        doubleCheck: false,
      }),
    );
  }
  /** `count` uploads of PASSED results of fresh sessions, their runs leased to the bench's agent. */
  const uploads = async (count: number): Promise<ResultUpload[]> => {
    const made: ResultUpload[] = [];
    while (made.length < count) {
      const ids = checkIds.slice(0, count - made.length);
      const created = await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: ids } });
      if (created.status !== 201) throw new Error(`trigger: ${created.status}`);
      const runs = await leaseRuns(server.server.context.db, {
        accountId: server.accountId,
        location: location.slugName,
        agentId: AGENT_ID,
        credits: { light: ids.length, browser: 0 },
        kinds: ['API'],
        now: clock.now(),
        leaseTtlMs: 3_600_000,
      });
      for (const run of runs) {
        made.push({
          runId: run.id,
          attempt: run.attempt,
          agentId: AGENT_ID,
          status: 'PASSED',
          result: apiResult(),
          networkError: false,
        });
      }
    }
    return made;
  };
  return { server, clock, location, uploads };
}

type Bench = Awaited<ReturnType<typeof setUp>>;

async function direct({ server, clock, location, uploads }: Bench, count = RESULTS): Promise<Figures> {
  const counting = new CountingDb(server.server.context.db);
  const runs = server.server.runs;
  const todo = await uploads(count);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const upload of todo) {
    const { ack } = await recordUploadedResult(
      counting.db,
      { accountId: server.accountId, location: location.slugName },
      upload,
      clock.now(),
      runs.onSessionFinished,
    );
    if (!ack.recorded) throw new Error(`not recorded: ${upload.runId}`);
  }
  const used = process.cpuUsage(cpu);
  return {
    way: 'recordUploadedResult, one by one',
    msPerResult: (performance.now() - started) / todo.length,
    cpuMsPerResult: (used.user + used.system) / 1000 / todo.length,
    statementsPerResult: counting.statements / todo.length,
    goal: GOAL_SINGLE_STATEMENTS,
  };
}

async function post(server: TestServer, key: string, path: string, body: unknown, headers = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'x-service-account': server.accountId,
      'x-agent-id': AGENT_ID,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

async function httpSingles({ server, location, uploads }: Bench): Promise<Figures> {
  const todo = await uploads(RESULTS);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    for (let upload = todo[next++]; upload; upload = todo[next++]) {
      const answer = await post(server, location.key, AGENT_PATHS.results, upload, {
        'idempotency-key': `${upload.runId}:${upload.attempt}`,
      });
      if (answer.status !== 200)
        throw new Error(`POST result: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return {
    way: 'HTTP, one POST per result, 4 at a time',
    msPerResult: (performance.now() - started) / todo.length,
    cpuMsPerResult: null,
    statementsPerResult: null,
  };
}

async function directBatches({ server, clock, location, uploads }: Bench): Promise<Figures> {
  const counting = new CountingDb(server.server.context.db);
  const todo = await uploads(RESULTS);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < todo.length; i += BATCH) {
    const { outcomes } = await recordUploadedResults(
      counting.db,
      { accountId: server.accountId, location: location.slugName },
      todo.slice(i, i + BATCH),
      clock.now(),
      server.server.runs.onSessionFinished,
    );
    if (!outcomes.every((o) => 'ack' in o && o.ack.recorded)) throw new Error('not all recorded');
  }
  const used = process.cpuUsage(cpu);
  return {
    way: `recordUploadedResults, ${BATCH} at a time`,
    msPerResult: (performance.now() - started) / todo.length,
    cpuMsPerResult: (used.user + used.system) / 1000 / todo.length,
    statementsPerResult: counting.statements / todo.length,
    goal: GOAL_BATCH_STATEMENTS,
  };
}

async function httpBatches({ server, location, uploads }: Bench): Promise<Figures> {
  const todo = await uploads(RESULTS);
  const started = performance.now();
  for (let i = 0; i < todo.length; i += BATCH) {
    const answer = await post(server, location.key, AGENT_PATHS.resultBatch, {
      results: todo.slice(i, i + BATCH),
    });
    const items = (answer.body as { results?: { statusCode: number }[] }).results ?? [];
    if (answer.status !== 200 || !items.every((item) => item.statusCode === 200)) {
      throw new Error(`POST batch: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    }
  }
  return {
    way: `HTTP, one POST per ${BATCH} results`,
    msPerResult: (performance.now() - started) / todo.length,
    cpuMsPerResult: null,
    statementsPerResult: null,
  };
}

const WAYS = [direct, httpSingles, directBatches, httpBatches];

let missed = false;
/** Optional filters: `npx tsx bench/result-ingest.ts 600 [way name part] [store]`. */
const [, , , ONLY_WAY = '', ONLY_STORE = ''] = process.argv;
for (const store of STORES.filter((s) => s.includes(ONLY_STORE))) {
  const bench = await setUp(store);
  try {
    // Warm-up: the first results pay for compiled queries and caches.
    await direct(bench, WARM_UP);
    console.log(`\n${store}: ${RESULTS} results per way`);
    console.log('| way | ms per result | CPU ms per result | statements per result |');
    console.log('|---|---|---|---|');
    for (const way of WAYS.filter((w) => w.name.includes(ONLY_WAY))) {
      const figures = await way(bench);
      const cell = (value: number | null, digits: number) => (value === null ? '–' : value.toFixed(digits));
      console.log(
        `| ${figures.way} | ${figures.msPerResult.toFixed(2)} | ${cell(figures.cpuMsPerResult, 2)} | ${cell(figures.statementsPerResult, 2)} |`,
      );
      if ((figures.statementsPerResult ?? 0) > (figures.goal ?? Number.POSITIVE_INFINITY)) missed = true;
    }
  } finally {
    await bench.server.close();
  }
}
console.log(missed ? '\nmissed: more statements per result than the goal' : '\ngoal met');
process.exitCode = missed ? 1 : 0;

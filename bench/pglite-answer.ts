/**
 * What reading a prepared statement's answer costs on PGlite (issue 14): the same Bind and Execute of a SELECT of 28
 * rows of 19 columns (the columns of a leased run: ids, timestamps, a small jsonb), its answer read by PGlite's own
 * parser (`execProtocolStream` and `parseResults`, how the server read answers before) and read in place
 * (`PgliteStatements`, src/server/store/pglite-answer.ts). CPU per statement, PGlite's own work included; A B A B.
 * No goal: it shows what the server's statements spend on reading their rows.
 * Run: npx tsx bench/pglite-answer.ts [rounds]
 */
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { PgliteStatements, prepareNamed } from '../src/server/store/pglite-statements.js';

const ROWS = 28;
const ROUNDS = Number(process.argv[2] ?? 5000);
const SELECT = 'SELECT * FROM runs ORDER BY id';

const db = new PGlite();
await db.waitReady;
await db.exec(`CREATE TABLE runs (id text PRIMARY KEY, account_id text, session_id text, check_id text,
  location text, status text, attempt int, created_at timestamptz, leased_at timestamptz, scheduled_at timestamptz,
  not_before timestamptz, finished_at timestamptz, reason text, payload jsonb, agent_id text,
  lease_expires_at timestamptz, leases bigint, slot_class text, check_type text)`);
for (let i = 0; i < ROWS; i++) {
  await db.query(
    `INSERT INTO runs VALUES ($1, 'account-1', 'session-' || $1, 'check-' || $1, 'bench-loc', 'leased', 1, now(),
       now(), now(), now(), NULL, NULL, $2, 'agent-1', now(), 1, 'light', 'API')`,
    [`run-${i}`, JSON.stringify({ request: { url: 'http://127.0.0.1:9/health', method: 'GET' } })],
  );
}

const inPlace = new PgliteStatements(db, {});
const name = 'bench_select';
const { columns } = await prepareNamed(db, name, SELECT);
if (!columns) throw new Error('no columns described');
const execute = Buffer.concat([
  protocol.serialize.bind({ statement: name, values: [] }),
  protocol.serialize.execute({}),
  protocol.serialize.sync(),
]);

const ways: Record<string, () => Promise<unknown[]>> = {
  "PGlite's parser": async () => {
    const messages = await db.execProtocolStream(execute, { syncToFs: false });
    return parse.parseResults([columns, ...messages], db.parsers)[0]?.rows ?? [];
  },
  'read in place': () => inPlace.run('bench_in_place', SELECT, [], false),
};

const [first, second] = await Promise.all(Object.values(ways).map((way) => way()));
if (JSON.stringify(first) !== JSON.stringify(second) || first?.length !== ROWS) {
  throw new Error('the two ways read different rows');
}

console.log(`${ROWS} rows of ${columns.fields.length} columns, ${ROUNDS} statements per measure`);
console.log('| way | CPU per statement |\n|---|---|');
for (const label of [...Object.keys(ways), ...Object.keys(ways)]) {
  const way = ways[label] as () => Promise<unknown[]>;
  for (let i = 0; i < ROUNDS / 5; i++) await way();
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) await way();
  const used = process.cpuUsage(start);
  console.log(`| ${label} | ${((used.user + used.system) / ROUNDS / 1000).toFixed(3)} ms |`);
}
await db.close();

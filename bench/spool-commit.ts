/**
 * What spooling a result costs the agent (issues 14 and 17): each result is on disk (appended to the spool's file,
 * fdatasync) before it is sent. Results that finish together share one write and one flush (group commit). Measured
 * with 1, 10 and 100 results finishing at once (JOB_CONCURRENCY=100 runs 300 a second), in a folder on this
 * repository's disk. Goal: with 100 at once, at most GOAL_FLUSHES_PER_RESULT flushes to disk per result.
 * Run: npx tsx bench/spool-commit.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ResultSpool, type SpoolEntry } from '../src/agent/spool/spool.js';
import { createLogger } from '../src/observability/logger.js';
import { SecretValues } from '../src/observability/secret-values.js';
import type { ResultUpload } from '../src/protocol/index.js';

const RESULTS = 600;
const GOAL_FLUSHES_PER_RESULT = 0.2;

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(root, '.bench-spool-'));
const log = createLogger({ level: 'ERROR', secrets: new SecretValues() });
const spool = await ResultSpool.open(dir, { maxBytes: 1024 ** 3, log });

/** An API check's result of about 3 KB. */
const upload = (i: number): ResultUpload => ({
  runId: `run-${i}`,
  attempt: 1,
  agentId: 'bench',
  status: 'PASSED',
  result: { hasErrors: false, responseTime: 12, body: 'x'.repeat(3000) },
  networkError: false,
});

let missed = false;
try {
  console.log('| results at once | ms per result | CPU ms per result | flushes to disk per result |');
  console.log('|---|---|---|---|');
  for (const atOnce of [1, 10, 100]) {
    const entries: SpoolEntry[] = [];
    let next = 0;
    const flushes = spool.diskFlushes;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: atOnce }, async () => {
        while (next < RESULTS) entries.push(await spool.add(upload(next++)));
      }),
    );
    const used = process.cpuUsage(cpu);
    const flushesPerResult = (spool.diskFlushes - flushes) / RESULTS;
    console.log(
      `| ${atOnce} | ${((performance.now() - started) / RESULTS).toFixed(3)} | ${((used.user + used.system) / 1000 / RESULTS).toFixed(3)} | ${flushesPerResult.toFixed(2)} |`,
    );
    if (atOnce === 100 && flushesPerResult > GOAL_FLUSHES_PER_RESULT) missed = true;
    for (const entry of entries) await spool.remove(entry);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(missed ? `\nmissed: more than ${GOAL_FLUSHES_PER_RESULT} flushes per result` : '\ngoal met');
process.exitCode = missed ? 1 : 0;

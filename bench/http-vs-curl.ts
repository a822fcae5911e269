/**
 * Our HTTP executor's response time against curl's time_total, on the same local URL that answers after
 * a known delay. Goal: medians within 1 ms. Run: npx tsx bench/http-vs-curl.ts
 */
import { apiCheckSchema } from '../src/checks/index.js';
import { executeApi } from '../src/executors/http/index.js';
import {
  curlSample,
  medianSample,
  sampleLine,
  startDelayedServer,
  type TimingSample,
} from './curl-timing.js';
import { benchContext } from './support.js';

const DELAY_MS = 50;
const RUNS = 20;
const WARMUP = 3;

const server = await startDelayedServer(DELAY_MS);
const check = apiCheckSchema.parse({ name: 'bench', checkType: 'API', request: { url: server.url } });
const context = benchContext();

async function ours(): Promise<TimingSample> {
  const attempt = await executeApi(check, context);
  const response = 'apiCheckResult' in attempt.detail ? attempt.detail.apiCheckResult.response : null;
  if (attempt.hasErrors || !response) throw new Error(attempt.error ?? 'request failed');
  const { timings } = response;
  return { connect: timings.connect, firstByte: timings.response, total: attempt.responseTime };
}

for (let i = 0; i < WARMUP; i++) {
  await ours();
  await curlSample(server.url);
}
const oursSamples: TimingSample[] = [];
const curlSamples: TimingSample[] = [];
// Interleaved, so both see the same machine load.
for (let i = 0; i < RUNS; i++) {
  oursSamples.push(await ours());
  curlSamples.push(await curlSample(server.url));
}
server.stop();

const oursMedian = medianSample(oursSamples);
const curlMedian = medianSample(curlSamples);
const difference = oursMedian.total - curlMedian.total;
console.log(`server delay ${DELAY_MS} ms, ${RUNS} requests each, medians:`);
console.log(sampleLine('vantage', oursMedian));
console.log(sampleLine('curl', curlMedian));
console.log(`difference ${difference >= 0 ? '+' : ''}${difference.toFixed(3)} ms (goal: within 1 ms)`);
process.exitCode = Math.abs(difference) <= 1 ? 0 : 1;

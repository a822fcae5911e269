/**
 * A pool thread: runs the jobs the pool sends it, `slots` at once, with the same session and attempt runners as
 * the main thread, and sends their outcomes back in batches (one message per turn of its event loop).
 */
import module from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromThread, ThreadData, ToThread } from './messages.js';
import { SlotRunner } from './slot-runner.js';

if (!parentPort) throw new Error('thread.ts runs as a worker thread of a CheckPool');
// The compiled code of the modules a thread imports (the executors, at their first run) is kept on disk as the
// main thread's is (src/cli/main.ts): a thread does not compile them anew at every run.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const port = parentPort;
const nothingDone = (): Extract<FromThread, { type: 'done' }> => ({
  type: 'done',
  sessions: [],
  attempts: [],
  failed: [],
});
let done = nothingDone();
let flushing = false;

function flush(): void {
  flushing = false;
  port.postMessage(done);
  done = nothingDone();
}

const runner = new SlotRunner((workerData as ThreadData).slots, (id, outcome) => {
  if ('session' in outcome) done.sessions.push({ id, json: JSON.stringify(outcome.session) });
  else if ('end' in outcome) done.attempts.push({ id, end: outcome.end });
  else done.failed.push({ id, message: outcome.error });
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
});

port.on('message', (message: ToThread) => {
  if (message.type === 'cancel') runner.cancel(message.ids);
  else runner.add(message.jobs);
});
port.postMessage({ type: 'ready' } satisfies FromThread);

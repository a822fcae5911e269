/**
 * A pool thread: runs the sessions the pool sends it, `slots` at once, with the same session runner as the main
 * thread, and sends their records back in batches.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runCheckSession } from '../run/session.js';
import { pooledExecutors } from './executors.js';
import type { FromThread, SessionJob, ThreadData, ToThread } from './messages.js';

if (!parentPort) throw new Error('thread.ts runs as a worker thread of a CheckPool');
const port = parentPort;
const { slots } = workerData as ThreadData;
const waiting: SessionJob[] = [];
const running = new Map<number, AbortController>();
const cancelled = new Set<number>();
let done: Extract<FromThread, { type: 'done' }> = { type: 'done', sessions: [], failed: [] };
let flushing = false;

function flush(): void {
  flushing = false;
  port.postMessage(done);
  done = { type: 'done', sessions: [], failed: [] };
}

async function run(job: SessionJob): Promise<void> {
  const controller = new AbortController();
  if (cancelled.delete(job.id)) controller.abort();
  running.set(job.id, controller);
  try {
    const session = await runCheckSession(job.check, {
      ...job.options,
      signal: controller.signal,
      executors: pooledExecutors,
    });
    done.sessions.push({ id: job.id, json: JSON.stringify(session) });
  } catch (error) {
    done.failed.push({ id: job.id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    running.delete(job.id);
  }
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
  startWaiting();
}

function startWaiting(): void {
  while (running.size < slots && waiting.length > 0) void run(waiting.shift() as SessionJob);
}

port.on('message', (message: ToThread) => {
  if (message.type === 'cancel') {
    for (const id of message.ids) {
      const controller = running.get(id);
      if (controller) controller.abort();
      else cancelled.add(id);
    }
    return;
  }
  waiting.push(...message.jobs);
  startWaiting();
});
port.postMessage({ type: 'ready' } satisfies FromThread);

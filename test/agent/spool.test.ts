import { appendFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ResultSpool, type SpoolEntry } from '../../src/agent/spool/spool.js';
import { createLogger } from '../../src/observability/logger.js';
import { SecretValues } from '../../src/observability/secret-values.js';
import type { ResultUpload } from '../../src/protocol/index.js';
import { LogCapture } from '../support/agent.js';

function upload(runId: string, size = 100): ResultUpload {
  return {
    runId,
    attempt: 1,
    agentId: 'agent-1',
    status: 'PASSED',
    result: { name: 'x'.repeat(size) },
    networkError: false,
  };
}

async function openSpool(dir: string, maxBytes = 1024 * 1024, resultsMayFollow?: () => boolean) {
  const logs = new LogCapture();
  const log = createLogger({ level: 'DEBUG', destination: logs, secrets: new SecretValues() });
  const dropped: number[] = [];
  const spool = await ResultSpool.open(dir, {
    maxBytes,
    log,
    onDropped: (n) => dropped.push(n),
    resultsMayFollow,
  });
  return { spool, logs, dropped };
}

/** What delivery would send of an entry: its JSON, as text. */
async function sent(spool: ResultSpool, entry: SpoolEntry | undefined): Promise<string> {
  const json = entry && (await spool.openJson(entry));
  if (!json) throw new Error('nothing to send');
  if (Buffer.isBuffer(json.body)) return json.body.toString();
  const chunks: Buffer[] = [];
  for await (const chunk of json.body) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  expect(Buffer.byteLength(text)).toBe(json.bytes);
  return text;
}

describe('result spool', () => {
  it('appends each result to one file, a line each, and reads them back after a restart, oldest first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    const { spool } = await openSpool(dir);
    await spool.add(upload('run-a'));
    await spool.add(upload('run-b'));
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    // A line is the upload's JSON itself, sent as it is; when the file was started is in its name.
    const [file] = files as [string];
    expect(file).toMatch(/\.results\.jsonl$/);
    expect((await readFile(join(dir, file), 'utf8')).split('\n')).toEqual([
      JSON.stringify(upload('run-a')),
      JSON.stringify(upload('run-b')),
      '',
    ]);
    expect(Number(file.split('-')[0])).toBeGreaterThan(Date.now() - 60_000);
    expect(await sent(spool, spool.entries()[0])).toBe(JSON.stringify(upload('run-a')));
    expect(await sent(spool, spool.entries()[1])).toBe(JSON.stringify(upload('run-b')));

    const reopened = (await openSpool(dir)).spool;
    expect(reopened.entries().map((e) => e.key)).toEqual(['run-a:1', 'run-b:1']);
    expect(await reopened.read(reopened.entries()[1] as never)).toEqual(upload('run-b'));
    await reopened.remove(reopened.entries()[0] as never);
    expect((await openSpool(dir)).spool.entries().map((e) => e.key)).toEqual(['run-b:1']);
  });

  it('writes results that finish while a write is under way together, and reads them back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    const { spool } = await openSpool(dir);
    const runs = ['run-1', 'run-2', 'run-3', 'run-4', 'run-5'];
    // The first is written at once; the others finish while it is being written, and share the next write.
    const entries = await Promise.all(runs.map((run) => spool.add(upload(run))));
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await readFile(join(dir, files[0] as string), 'utf8')).split('\n')).toEqual([
      ...runs.map((run) => JSON.stringify(upload(run))),
      '',
    ]);
    for (const [index, entry] of entries.entries()) {
      expect(await sent(spool, entry)).toBe(JSON.stringify(upload(runs[index] as string)));
      expect(await spool.jsonBytes(entry)).toEqual(
        Buffer.from(JSON.stringify(upload(runs[index] as string))),
      );
      expect(await spool.read(entry)).toEqual(upload(runs[index] as string));
    }

    const reopened = (await openSpool(dir)).spool;
    expect(reopened.entries().map((e) => e.runId)).toEqual(runs);
    expect(await reopened.read(reopened.entries()[3] as never)).toEqual(upload('run-4'));
    expect(await reopened.jsonBytes(reopened.entries()[3] as never)).toEqual(
      Buffer.from(JSON.stringify(upload('run-4'))),
    );
    // The file goes with the last of its results.
    for (const entry of reopened.entries().slice(0, 4)) await reopened.remove(entry);
    expect(await readdir(dir)).toHaveLength(1);
    await reopened.remove(reopened.entries()[0] as never);
    expect(await readdir(dir)).toEqual([]);
  });

  it('holds a result while runs are in progress, and writes it with the last one in one durable write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    let running = 3;
    const { spool } = await openSpool(dir, 1024 * 1024, () => running > 0);
    const written: string[] = [];
    const add = (run: string) => spool.add(upload(run)).then(() => written.push(run));
    // The wait for company never ends by itself here: only the last run's result can end it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      running--;
      const first = add('run-1');
      running--;
      const second = add('run-2');
      await readdir(dir);
      expect(written).toEqual([]);
      expect(spool.diskFlushes).toBe(0);
      // The last run's result has nothing left to wait for: it goes at once, with the two before it.
      running--;
      await Promise.all([first, second, add('run-3')]);
      expect(written).toEqual(['run-1', 'run-2', 'run-3']);
      expect(spool.diskFlushes).toBe(1);
      // With no run in progress, a result is written at once.
      await add('run-4');
      expect(spool.diskFlushes).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps appending to its file when every result in it is acknowledged, and skips a torn last line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    const { spool } = await openSpool(dir);
    const first = await spool.add(upload('run-1'));
    // Acknowledged while the file takes more: its line is marked, not read again, and the file stays.
    await spool.remove(first);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    const second = await spool.add(upload('run-2'));
    await spool.add(upload('run-3'));
    await spool.remove(second);
    expect(await readdir(dir)).toEqual(files);
    const [file] = files as [string];
    // A crash in the middle of an append leaves part of a line at the end: the results before it are kept.
    await appendFile(join(dir, file), '{"runId":"run-4","att');
    const { spool: reopened, logs } = await openSpool(dir);
    expect(reopened.entries().map((e) => e.runId)).toEqual(['run-3']);
    expect(logs.text).toContain('unreadable');
  });

  it('removes a file whose results were all acknowledged once it takes no more', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    // A file takes results up to a quarter of the spool's size: 500 bytes here, about three of these results.
    const { spool } = await openSpool(dir, 2000);
    const entries = [];
    for (const run of ['run-1', 'run-2', 'run-3']) entries.push(await spool.add(upload(run)));
    const [full] = (await readdir(dir)) as [string];
    for (const entry of entries) await spool.remove(entry);
    expect(await readdir(dir)).toEqual([full]);
    await spool.add(upload('run-4'));
    const [next] = (await readdir(dir)) as [string];
    expect(await readdir(dir)).toHaveLength(1);
    expect(next).not.toBe(full);
    expect((await readFile(join(dir, next), 'utf8')).split('\n')).toEqual([
      JSON.stringify(upload('run-4')),
      '',
    ]);
    expect((await openSpool(dir)).spool.entries().map((e) => e.runId)).toEqual(['run-4']);
  });

  it('reads and sends the files of earlier versions, which wrap the upload with its key and time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    const wrapped = { key: 'run-old:1', spooledAt: '2026-11-01T10:00:00.000Z', upload: upload('run-old') };
    await writeFile(join(dir, '00001761991200000-000000-abcdef.result.json'), JSON.stringify(wrapped));
    const { spool } = await openSpool(dir);
    const [entry] = spool.entries();
    expect(entry).toMatchObject({ key: 'run-old:1', spooledAt: new Date(wrapped.spooledAt) });
    expect(await spool.read(entry as never)).toEqual(upload('run-old'));
    expect(JSON.parse(await sent(spool, entry))).toEqual(upload('run-old'));
  });

  it('clears half-written and unreadable files when it opens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    await writeFile(join(dir, '.partial-123-00001.result.json'), '{"key":');
    await writeFile(join(dir, '00000000000001-000000-abcdef.result.json'), 'not json');
    await writeFile(join(dir, '00000000000002-000000-abcdef.results.jsonl'), 'not json\n{"runId":\n');
    const { spool, logs } = await openSpool(dir);
    expect(spool.count).toBe(0);
    expect(await readdir(dir)).toEqual([]);
    expect(logs.text).toContain('unreadable');
  });

  it('drops the oldest results, with a logged count, only when over its size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vantage-spool-'));
    const { spool, logs, dropped } = await openSpool(dir, 1000);
    await spool.add(upload('run-1', 300));
    await spool.add(upload('run-2', 300));
    expect(dropped).toEqual([]);
    await spool.add(upload('run-3', 300));
    await spool.add(upload('run-4', 300));
    expect(spool.entries().map((e) => e.runId)).toEqual(['run-3', 'run-4']);
    expect(dropped.reduce((a, b) => a + b, 0)).toBe(2);
    expect((await openSpool(dir)).spool.entries().map((e) => e.runId)).toEqual(['run-3', 'run-4']);
    expect(logs.text).toMatch(/over AGENT_SPOOL_MAX_MB: dropped the 1 oldest result/);
    expect(spool.bytes).toBeLessThanOrEqual(1000);
  });
});

import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ListedFolders, makeOwnerOnly } from '../../../src/server/store/owner-only.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A file made as PGlite makes its files: readable and writable by everyone. */
function looseFile(path: string): void {
  writeFileSync(path, 'secret');
  chmodSync(path, 0o666);
}

/** Dates a folder's last change a minute back, as a sweep a minute after it finds it. */
function settle(folder: string): void {
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(folder, minuteAgo, minuteAgo);
}

describe('the data folder made owner-only', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vantage-owner-only-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes every folder 0700 and every file 0600', async () => {
    mkdirSync(join(dir, 'base', '5'), { recursive: true });
    chmodSync(join(dir, 'base'), 0o777);
    looseFile(join(dir, 'base', '5', '16384'));
    looseFile(join(dir, 'PG_VERSION'));
    await makeOwnerOnly(dir);
    expect(modeOf(join(dir, 'base'))).toBe(0o700);
    expect(modeOf(join(dir, 'base', '5', '16384'))).toBe(0o600);
    expect(modeOf(join(dir, 'PG_VERSION'))).toBe(0o600);
  });

  /** A folder of `dir` holding one loose file, swept, and swept again a minute after its last change. */
  async function sweptFolderOfOneFile(name: string, file: string): Promise<ListedFolders> {
    const folder = join(dir, name);
    mkdirSync(folder);
    looseFile(join(folder, file));
    const listed: ListedFolders = new Map();
    await makeOwnerOnly(dir, listed);
    settle(folder);
    await makeOwnerOnly(dir, listed);
    return listed;
  }

  it('catches, sweep after sweep, a file added or put in place of another since the last', async () => {
    const wal = join(dir, 'pg_wal');
    const listed = await sweptFolderOfOneFile('pg_wal', '000000010000000000000001');

    looseFile(join(wal, '000000010000000000000002'));
    await makeOwnerOnly(dir, listed);
    expect(modeOf(join(wal, '000000010000000000000002'))).toBe(0o600);

    // Written beside it and renamed over it, as PostgreSQL replaces a file: a new file under an old name.
    settle(wal);
    await makeOwnerOnly(dir, listed);
    looseFile(join(wal, 'next.tmp'));
    renameSync(join(wal, 'next.tmp'), join(wal, '000000010000000000000001'));
    await makeOwnerOnly(dir, listed);
    expect(modeOf(join(wal, '000000010000000000000001'))).toBe(0o600);
  });

  it('looks no more at the files of a folder that did not change since the last sweep', async () => {
    const base = join(dir, 'base');
    const listed = await sweptFolderOfOneFile('base', '16384');
    // Changed by hand: no file of the store changes its mode, so a settled folder's files are not looked at.
    chmodSync(join(base, '16384'), 0o644);
    await makeOwnerOnly(dir, listed);
    expect(modeOf(join(base, '16384'))).toBe(0o644);
    // Without the map, every file is.
    await makeOwnerOnly(dir);
    expect(modeOf(join(base, '16384'))).toBe(0o600);
  });
});

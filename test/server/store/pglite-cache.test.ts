import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/store/db.js';
import { freshPgliteDir } from '../../support/server.js';

/** What PGlite's PostgreSQL says its buffer cache is, on a store opened with `options`. */
async function sharedBuffers(options: { pgliteCacheMb?: number }): Promise<string> {
  const dataDir = await freshPgliteDir();
  const db = await openDb({ dataDir, ...options });
  try {
    const [row] = await db.query<{ shared_buffers: string }>('SHOW shared_buffers');
    return row?.shared_buffers ?? '';
  } finally {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe("PGlite's buffer cache (VANTAGE_PGLITE_CACHE_MB)", () => {
  it("is 32 MB unless set, where PostgreSQL's default of 128 MB would stay resident", async () => {
    expect(await sharedBuffers({})).toBe('32MB');
  });

  it('takes the size the server was given', async () => {
    expect(await sharedBuffers({ pgliteCacheMb: 48 })).toBe('48MB');
  });
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { IcmpCheckResult } from '../../../src/checks/index.js';
import { executeIcmp, probeIcmpCapability, RAW_SOCKET_REQUIRED } from '../../../src/executors/icmp/index.js';
import { icmpCheck, rawSockets, runContext } from './fixtures.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const script = fileURLToPath(new URL('./without-net-raw.ts', import.meta.url));
const capsh = ['/usr/sbin/capsh', '/sbin/capsh', '/usr/bin/capsh'].find((path) => existsSync(path));

/** What an agent without raw sockets must report: the probe says so, and a run fails naming the fix. */
function expectRefusal(
  probe: { available: boolean; reason: string | null },
  attempt: Record<string, unknown>,
) {
  expect(probe).toEqual({ available: false, reason: RAW_SOCKET_REQUIRED });
  expect(attempt).toMatchObject({ hasErrors: true, networkError: false, error: RAW_SOCKET_REQUIRED });
  const { icmpCheckResult } = attempt.detail as { icmpCheckResult: IcmpCheckResult };
  expect(icmpCheckResult.requestError).toBe(RAW_SOCKET_REQUIRED);
  expect(icmpCheckResult.response).toMatchObject({ resolvedIp: '127.0.0.1', packetsSent: 0 });
}

describe('the ICMP capability probe', () => {
  // Root may open raw sockets (the image grants NET_RAW otherwise): the probe must find them, whatever it says here.
  it.runIf(process.getuid?.() === 0)('finds raw sockets for root', async () => {
    expect(await probeIcmpCapability()).toEqual({ available: true, reason: null });
  });

  it.runIf(!rawSockets.available)(
    'names the missing NET_RAW capability here, and a run fails with it',
    async () => {
      const attempt = await executeIcmp(icmpCheck({ hostname: '127.0.0.1', pingCount: 1 }), runContext());
      expectRefusal(rawSockets, attempt as unknown as Record<string, unknown>);
    },
  );

  it.runIf(rawSockets.available && capsh !== undefined)(
    `names the missing NET_RAW capability in a process started without it${capsh ? '' : ' (skipped: no capsh)'}`,
    async () => {
      const { stdout } = await promisify(execFile)(
        capsh as string,
        ['--drop=cap_net_raw', '--', '-c', 'exec "$0" --import tsx "$1"', process.execPath, script],
        { cwd: root },
      );
      const { probe, attempt } = JSON.parse(stdout);
      expectRefusal(probe, attempt);
    },
  );
});

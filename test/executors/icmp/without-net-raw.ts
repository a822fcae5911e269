/** Run by capability.test.ts in a child process without NET_RAW: prints what the probe and a run report. */
import { executeIcmp, probeIcmpCapability } from '../../../src/executors/icmp/index.js';
import { icmpCheck, runContext } from './fixtures.js';

const probe = await probeIcmpCapability();
const attempt = await executeIcmp(icmpCheck({ hostname: '127.0.0.1', pingCount: 1 }), runContext());
process.stdout.write(JSON.stringify({ probe, attempt }));

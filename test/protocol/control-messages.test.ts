import { describe, expect, it } from 'vitest';
import { parseControlMessage } from '../../src/protocol/control-messages.js';

const run = {
  type: 'run',
  runId: 'r1',
  checkSessionId: 's1',
  attempt: 1,
  runSource: 'SCHEDULER',
  runLocation: 'bench',
  check: { checkType: 'URL' },
  inheritedVariables: [[{ key: 'A', value: 'a', secret: true }], []],
  clientCertificates: [{ host: 'x.test', cert: 'c', key: 'k', ca: null }],
  leaseExpiresAt: '2026-01-01T00:00:00Z',
};

describe("the control plane's messages to the agent", () => {
  it('takes each message of the protocol as it is', () => {
    const welcome = {
      type: 'welcome',
      protocolVersion: 2,
      location: 'l',
      heartbeatIntervalMs: 1,
      leaseTtlMs: 5,
    };
    for (const message of [
      welcome,
      run,
      { type: 'cancel', runId: 'r1' },
      { type: 'error', code: 'REVOKED', message: 'revoked', fatal: true },
    ]) {
      expect(parseControlMessage(message)).toEqual({ ok: true, message });
    }
  });

  it('names each field that breaks its rule, and the rule', () => {
    expect(
      parseControlMessage({
        ...run,
        attempt: 0,
        runSource: 'NOPE',
        check: [],
        inheritedVariables: [[{ key: 'A', value: 1, extra: true }]],
        clientCertificates: [{ host: 'x.test', cert: 'c', key: 'k', passphrase: 3 }],
        leaseExpiresAt: undefined,
        more: 1,
      }),
    ).toEqual({
      ok: false,
      problems: [
        'more: is not a field here',
        'attempt: must be a whole number of at least 1',
        expect.stringMatching(/^runSource: must be one of /),
        'check: must be an object',
        'inheritedVariables[0][0].extra: is not a field here',
        'inheritedVariables[0][0].value: must be text',
        'clientCertificates[0].passphrase: must be text',
        'leaseExpiresAt: must be text',
      ],
    });
    expect(parseControlMessage({ type: 'welcome', protocolVersion: 1.5 })).toEqual({
      ok: false,
      problems: [
        'protocolVersion: must be a whole number',
        'location: must be text',
        'heartbeatIntervalMs: must be a whole number of at least 1',
        'leaseTtlMs: must be a whole number of at least 1',
      ],
    });
    expect(parseControlMessage({ type: 'error', code: 'OOPS', message: 'x', fatal: 'yes' })).toEqual({
      ok: false,
      problems: [
        'code: must be one of UNSUPPORTED_PROTOCOL, REVOKED, BAD_MESSAGE, INTERNAL',
        'fatal: must be true or false',
      ],
    });
    expect(parseControlMessage({ type: 'hello' })).toEqual({
      ok: false,
      problems: ['type: must be one of welcome, run, cancel, error'],
    });
    expect(parseControlMessage('run')).toEqual({
      ok: false,
      problems: ['type: must be one of welcome, run, cancel, error'],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { formatEndpoint, parseServerEntry, systemResolver } from '../../../src/executors/dns/name-server.js';

// What node:dns getServers() returns for the system resolver; no query goes to it in tests.
describe('parseServerEntry', () => {
  it.each([
    ['8.8.8.8', { address: '8.8.8.8', port: null }],
    ['127.0.0.53:5353', { address: '127.0.0.53', port: 5353 }],
    ['2001:db8::1', { address: '2001:db8::1', port: null }],
    ['[2001:db8::1]:5353', { address: '2001:db8::1', port: 5353 }],
    ['[::1]', { address: '::1', port: null }],
  ])('reads %s', (entry, expected) => {
    expect(parseServerEntry(entry)).toEqual(expected);
  });

  it.each(['', 'resolver.local', 'resolver.local:53', '1.2.3.4:0', '1.2.3.4:70000', '[::1]:x'])(
    'rejects %j',
    (entry) => {
      expect(parseServerEntry(entry)).toBeNull();
    },
  );
});

describe('systemResolver', () => {
  it('takes the first usable entry, with its own port when it has one', () => {
    expect(systemResolver(['bogus', '[::1]:5300', '10.0.0.1'], 53)).toEqual({
      address: '::1',
      port: 5300,
      family: 6,
    });
  });

  it("uses the check's port for an entry without one", () => {
    expect(systemResolver(['10.0.0.1', '10.0.0.2'], 5353)).toEqual({
      address: '10.0.0.1',
      port: 5353,
      family: 4,
    });
  });

  it('finds none in an empty list', () => {
    expect(systemResolver([], 53)).toBeNull();
  });
});

it('formatEndpoint brackets IPv6 addresses', () => {
  expect(formatEndpoint({ address: '::1', port: 53, family: 6 })).toBe('[::1]:53');
  expect(formatEndpoint({ address: '127.0.0.1', port: 53, family: 4 })).toBe('127.0.0.1:53');
});

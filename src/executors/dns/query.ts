import { randomInt } from 'node:crypto';
import { domainToASCII } from 'node:url';
import dnsPacket from 'dns-packet';
import type { DnsRecordType } from '../../checks/index.js';

/** dns-packet knows no HTTPS type (65); it reads and writes unknown types as `UNKNOWN_<number>`. */
const WIRE_TYPES: Record<DnsRecordType, string> = {
  A: 'A',
  AAAA: 'AAAA',
  CNAME: 'CNAME',
  MX: 'MX',
  NS: 'NS',
  TXT: 'TXT',
  SOA: 'SOA',
  HTTPS: 'UNKNOWN_65',
};

const NAMES_OF_UNKNOWN_TYPES: Record<string, string> = { UNKNOWN_64: 'SVCB', UNKNOWN_65: 'HTTPS' };

/** The type name users know for a type as dns-packet spells it: `UNKNOWN_65` is HTTPS, others `TYPE<n>`. */
export function typeName(wireType: string): string {
  if (!wireType.startsWith('UNKNOWN_')) return wireType;
  return NAMES_OF_UNKNOWN_TYPES[wireType] ?? `TYPE${wireType.slice('UNKNOWN_'.length)}`;
}

/** One question as sent: its id, its name in canonical form (to compare replies with), and the encoded message. */
export interface DnsQuery {
  id: number;
  name: string;
  wireType: string;
  message: Buffer;
}

/** A name compared case-insensitively and without its trailing dot; the root stays `.`. */
export function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The query name in ASCII (IDNs as punycode), or why it cannot be sent. */
export function queryName(raw: string): { name: string } | { problem: string } {
  const trimmed = raw.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range test
  const ascii = /^[\x00-\x7f]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (ascii === '') return { problem: `query "${raw}" is not a valid domain name` };
  if (ascii === '.') return { name: ascii };
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  for (const label of name.split('.')) {
    const bytes = Buffer.byteLength(label);
    if (bytes === 0) return { problem: `query "${raw}" has an empty label` };
    if (bytes > 63) return { problem: `query "${raw}" has a label longer than 63 bytes` };
  }
  if (Buffer.byteLength(name) + 2 > 255) return { problem: `query "${raw}" is longer than 255 bytes` };
  return { name };
}

/** A recursive query (RD set) with a random id. No EDNS: answers over 512 bytes come back truncated and are asked again over TCP. */
export function buildQuery(name: string, recordType: DnsRecordType): DnsQuery {
  const id = randomInt(0, 0x10000);
  const wireType = WIRE_TYPES[recordType];
  const message = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: wireType as dnsPacket.RecordType, class: 'IN' }],
  });
  return { id, name: canonicalName(name), wireType, message };
}

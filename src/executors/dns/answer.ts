import type dnsPacket from 'dns-packet';
import type { DnsAnswerJson } from '../../checks/index.js';
import { typeName } from './query.js';
import { formatName, formatRecordData } from './record-data.js';

interface DecodedRecord {
  name: string;
  type: string;
  ttl?: number;
  class?: string;
  data?: unknown;
}

/** The header's 4-bit response code (no EDNS is sent, so there is no extended part). */
export function rcodeOf(packet: dnsPacket.DecodedPacket): number {
  return (packet.flags ?? 0) & 0xf;
}

function answerRecords(packet: dnsPacket.DecodedPacket): DecodedRecord[] {
  return ((packet.answers ?? []) as DecodedRecord[]).filter((r) => r.type !== 'OPT');
}

/** The JSON answer of docs/checks.md; names and data in the `json` style of record-data.ts. */
export function jsonAnswer(packet: dnsPacket.DecodedPacket): DnsAnswerJson {
  return {
    Status: rcodeOf(packet),
    TC: packet.flag_tc,
    RD: packet.flag_rd,
    RA: packet.flag_ra,
    AD: packet.flag_ad,
    CD: packet.flag_cd,
    Question: (packet.questions ?? []).map((q) => ({ name: q.name, type: typeName(q.type) })),
    Answer: answerRecords(packet).map((r) => ({
      name: r.name,
      type: typeName(r.type),
      TTL: r.ttl ?? 0,
      data: formatRecordData(r.type, r.data, 'json'),
    })),
  };
}

/**
 * The answer section as dig prints it, one record a line, fields separated by one space:
 * `example.test. 300 IN A 127.0.0.1`. Empty when there are no answers.
 */
export function textAnswer(packet: dnsPacket.DecodedPacket): string {
  return answerRecords(packet)
    .map((r) =>
      [
        formatName(r.name, 'text'),
        r.ttl ?? 0,
        r.class ?? 'IN',
        typeName(r.type),
        formatRecordData(r.type, r.data, 'text'),
      ].join(' '),
    )
    .join('\n');
}

import dnsPacket from 'dns-packet';
import { canonicalName, type DnsQuery, typeName } from './query.js';

/** What a received message is worth for our query. */
export type ReplyVerdict =
  | { kind: 'answer'; packet: dnsPacket.DecodedPacket }
  /** TC set: ask again over TCP. `packet` is null when the cut message did not decode. */
  | { kind: 'truncated'; packet: dnsPacket.DecodedPacket | null }
  | { kind: 'ignored'; reason: string };

const HEADER_BYTES = 12;
const QR = 0x8000;
const TC = 0x0200;

/** Judges a received message: the id must match, QR must be set, and the question must be ours. */
export function judgeReply(message: Buffer, query: DnsQuery): ReplyVerdict {
  if (message.length < HEADER_BYTES) {
    return { kind: 'ignored', reason: `a ${message.length}-byte message is shorter than a DNS header` };
  }
  const id = message.readUInt16BE(0);
  if (id !== query.id)
    return { kind: 'ignored', reason: `reply id ${id} does not match query id ${query.id}` };
  const flags = message.readUInt16BE(2);
  if ((flags & QR) === 0)
    return { kind: 'ignored', reason: 'the message is a query, not a response (QR unset)' };

  let packet: dnsPacket.DecodedPacket;
  try {
    packet = dnsPacket.decode(message);
    // dns-packet reads a record's data with slices that stop quietly at the end: what it consumed (a number past
    // the length, or NaN from reading past it) tells.
    if (!(dnsPacket.decode.bytes <= message.length)) {
      throw new Error(`a record runs past the end of the ${message.length}-byte message`);
    }
  } catch (error) {
    // A server may cut a truncated message anywhere; its header alone is enough to go on over TCP.
    if (flags & TC) return { kind: 'truncated', packet: null };
    return { kind: 'ignored', reason: `undecodable reply (${(error as Error).message})` };
  }

  const problem = questionProblem(packet, query);
  if (problem) return { kind: 'ignored', reason: problem };
  return packet.flag_tc ? { kind: 'truncated', packet } : { kind: 'answer', packet };
}

function questionProblem(packet: dnsPacket.DecodedPacket, query: DnsQuery): string | null {
  const questions = packet.questions ?? [];
  // Some servers leave the question out of error and truncated replies; the matching id vouches for them.
  if (questions.length === 0 && ((packet.flags ?? 0) & 0xf || packet.flag_tc)) return null;
  const [question] = questions;
  if (questions.length !== 1 || !question) {
    return `the reply carries ${questions.length} questions instead of 1`;
  }
  const sameName = canonicalName(question.name) === query.name;
  const sameType = question.type === query.wireType;
  const sameClass = (question.class ?? 'IN') === 'IN';
  if (sameName && sameType && sameClass) return null;
  return `the reply's question ${question.name} ${typeName(question.type)} is not ${query.name} ${typeName(query.wireType)}`;
}

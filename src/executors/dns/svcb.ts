/** The RDATA of an HTTPS (or SVCB) record, which dns-packet leaves as bytes (RFC 9460). */
export interface ServiceBinding {
  priority: number;
  /** Without trailing dot; `.` for the root (the owner name itself when priority > 0). */
  target: string;
  /** `key=value` (or a bare key) in presentation form, in wire order. */
  params: string[];
}

const KEY_NAMES = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath'];

/** Throws when the bytes are not a well-formed SVCB RDATA. */
export function decodeServiceBinding(rdata: Buffer): ServiceBinding {
  const reader = new Reader(rdata);
  const priority = reader.u16();
  const target = reader.name();
  const params: string[] = [];
  while (!reader.done()) {
    const key = reader.u16();
    const value = reader.bytes(reader.u16());
    params.push(formatParam(key, value));
  }
  return { priority, target, params };
}

function keyName(key: number): string {
  return KEY_NAMES[key] ?? `key${key}`;
}

function formatParam(key: number, value: Buffer): string {
  const name = keyName(key);
  switch (name) {
    case 'mandatory':
      return `${name}=${chunks(value, 2)
        .map((k) => keyName(k.readUInt16BE(0)))
        .join(',')}`;
    case 'alpn':
      return `${name}=${characterStrings(value).map(escapeText).join(',')}`;
    case 'no-default-alpn':
      return name;
    case 'port':
      return `${name}=${value.readUInt16BE(0)}`;
    case 'ipv4hint':
      return `${name}=${chunks(value, 4)
        .map((a) => a.join('.'))
        .join(',')}`;
    case 'ipv6hint':
      return `${name}=${chunks(value, 16).map(formatIpv6).join(',')}`;
    case 'ech':
      return `${name}=${value.toString('base64')}`;
    default:
      return value.length === 0 ? name : `${name}=${escapeText(value)}`;
  }
}

function chunks(value: Buffer, size: number): Buffer[] {
  if (value.length % size !== 0)
    throw new Error(`SVCB value of ${value.length} bytes is not a list of ${size}`);
  const out: Buffer[] = [];
  for (let at = 0; at < value.length; at += size) out.push(value.subarray(at, at + size));
  return out;
}

function characterStrings(value: Buffer): Buffer[] {
  const reader = new Reader(value);
  const out: Buffer[] = [];
  while (!reader.done()) out.push(reader.bytes(reader.u8()));
  return out;
}

/** Printable ASCII as is; everything else, and the characters that delimit values, as `\DDD`. */
function escapeText(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) {
    const plain = byte > 0x20 && byte < 0x7f && !'",;\\'.includes(String.fromCharCode(byte));
    out += plain ? String.fromCharCode(byte) : `\\${byte.toString().padStart(3, '0')}`;
  }
  return out;
}

/** RFC 5952 form, as the URL parser writes IPv6 hosts. */
function formatIpv6(bytes: Buffer): string {
  const groups = chunks(bytes, 2).map((g) => g.readUInt16BE(0).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

class Reader {
  private at = 0;

  constructor(private readonly buffer: Buffer) {}

  done(): boolean {
    return this.at >= this.buffer.length;
  }

  u8(): number {
    return this.bytes(1).readUInt8(0);
  }

  u16(): number {
    return this.bytes(2).readUInt16BE(0);
  }

  bytes(count: number): Buffer {
    if (this.at + count > this.buffer.length) throw new Error('SVCB record data ends early');
    const out = this.buffer.subarray(this.at, this.at + count);
    this.at += count;
    return out;
  }

  /** An uncompressed name, as RFC 9460 requires for TargetName. */
  name(): string {
    const labels: string[] = [];
    for (let length = this.u8(); length !== 0; length = this.u8()) {
      if (length > 63) throw new Error('SVCB target name is compressed or malformed');
      labels.push(this.bytes(length).toString('latin1'));
    }
    return labels.length === 0 ? '.' : labels.join('.');
  }
}

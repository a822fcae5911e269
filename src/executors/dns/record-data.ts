import { decodeServiceBinding } from './svcb.js';

/**
 * How record data is written:
 * - `json` (the JSON answer, after Google's DNS-over-HTTPS JSON): names as dns-packet gives them, without a
 *   trailing dot (the root is `.`); TXT strings joined into one text, unquoted.
 * - `text` (TEXT_ANSWER, after dig): names absolute, with a trailing dot; each TXT string quoted.
 * Otherwise both are alike: MX `10 mail.example.com`, SOA `mname rname serial refresh retry expire minimum`,
 * HTTPS `priority target key=value ...` (alpn=h2,h3 unquoted), unknown data as RFC 3597 `\# length hex`.
 */
export type DataStyle = 'json' | 'text';

export function formatName(name: string, style: DataStyle): string {
  return style === 'text' && name !== '.' ? `${name}.` : name;
}

interface Fields {
  [field: string]: unknown;
}

export function formatRecordData(wireType: string, data: unknown, style: DataStyle): string {
  const name = (value: unknown) => formatName(String(value), style);
  const fields = (data ?? {}) as Fields;
  switch (wireType) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return name(data);
    case 'MX':
      return `${fields.preference ?? 0} ${name(fields.exchange)}`;
    case 'TXT':
      return formatTxt(data, style);
    case 'SOA': {
      const { mname, rname, serial, refresh, retry, expire, minimum } = fields;
      return [name(mname), name(rname), serial, refresh, retry, expire, minimum].map((v) => v ?? 0).join(' ');
    }
    case 'UNKNOWN_64':
    case 'UNKNOWN_65':
      if (Buffer.isBuffer(data)) return formatServiceBinding(data, style);
      break;
  }
  return Buffer.isBuffer(data) ? unknownData(data) : JSON.stringify(data);
}

function formatTxt(data: unknown, style: DataStyle): string {
  const strings = (Array.isArray(data) ? data : [data]).map((s) =>
    Buffer.isBuffer(s) ? s : Buffer.from(String(s)),
  );
  return style === 'json' ? strings.map((s) => s.toString('utf8')).join('') : strings.map(quote).join(' ');
}

function formatServiceBinding(rdata: Buffer, style: DataStyle): string {
  try {
    const { priority, target, params } = decodeServiceBinding(rdata);
    return [String(priority), formatName(target, style), ...params].join(' ');
  } catch {
    return unknownData(rdata);
  }
}

/** A DNS character-string as dig writes it: quoted, with `"` and `\` escaped and other bytes as `\DDD`. */
function quote(bytes: Buffer): string {
  let out = '"';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (byte >= 0x20 && byte < 0x7f) out += char;
    else out += `\\${byte.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

function unknownData(bytes: Buffer): string {
  return `\\# ${bytes.length}${bytes.length ? ` ${bytes.toString('hex')}` : ''}`;
}

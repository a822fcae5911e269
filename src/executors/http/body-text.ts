import { isUtf8 } from 'node:buffer';

const TEXT_TYPES =
  /^(text\/.+|[\w-]+\/([\w.-]+\+)?(json|xml)|application\/(javascript|ecmascript|x-javascript|x-www-form-urlencoded|graphql|yaml|x-yaml|x-ndjson))$/;

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function charsetOf(contentType: string | undefined): string {
  return /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
}

/** Text as its charset says (UTF-8 when it says none or one we do not know). */
export function decodeText(data: Buffer, contentType: string | undefined): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(data);
  } catch {
    return data.toString('utf8');
  }
}

/** Whether bytes hold a C0 control character other than whitespace and ESC: "text" that is binary in all but name. */
function hasBinaryControls(data: Buffer): boolean {
  for (let i = 0; i < data.length; i++) {
    const byte = data[i] as number;
    if (byte < 0x20 && (byte < 0x09 || (byte > 0x0d && byte !== 0x1b))) return true;
  }
  return false;
}

/**
 * How a result carries a body: text for text-like content types whose bytes are text, base64 for anything else —
 * also for a "text" body of invalid UTF-8 or control characters, which as JSON text would grow up to six-fold
 * (`\u0000` for each NUL byte) where base64 grows by a third.
 */
export function bodyEncodingOf(data: Buffer, contentType: string | undefined): 'utf8' | 'base64' {
  const type = mediaType(contentType);
  const textual = type === '' || TEXT_TYPES.test(type);
  const utf8 = /^utf-?8$/i.test(charsetOf(contentType));
  if (!textual || (utf8 && !isUtf8(data))) return 'base64';
  return hasBinaryControls(data) ? 'base64' : 'utf8';
}

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

/** How a result carries a body: text for text-like content types, base64 for anything else. */
export function bodyEncodingOf(data: Buffer, contentType: string | undefined): 'utf8' | 'base64' {
  const type = mediaType(contentType);
  if (type === '') return isUtf8(data) ? 'utf8' : 'base64';
  return TEXT_TYPES.test(type) ? 'utf8' : 'base64';
}

import type { BodyType } from '../../checks/index.js';

/** The bytes a bodyType sends, and the content-type it implies (null: none added). */
export interface EncodedBody {
  body: string | null;
  contentType: string | null;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function formField(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A JSON object's fields as a form (arrays repeat their key); any other text is sent as written. */
function encodeForm(body: string): string {
  const fields = parseJsonObject(body);
  if (!fields) return body;
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, formField(item));
  }
  return form.toString();
}

function encodeGraphql(body: string): string {
  const parsed = parseJsonObject(body);
  return parsed && 'query' in parsed ? body : JSON.stringify({ query: body });
}

export function encodeBody(bodyType: BodyType, body: string): EncodedBody {
  switch (bodyType) {
    case 'JSON':
      return { body, contentType: 'application/json' };
    case 'FORM':
      return { body: encodeForm(body), contentType: 'application/x-www-form-urlencoded' };
    case 'RAW':
      return { body, contentType: null };
    case 'GRAPHQL':
      return { body: encodeGraphql(body), contentType: 'application/json' };
    case 'NONE':
      return { body: null, contentType: null };
  }
}

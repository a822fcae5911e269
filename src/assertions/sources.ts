import type { CompareOptions } from './compare.js';
import type { EvaluationContext } from './context.js';
import type { AssertionSpec, AssertionSubject } from './index.js';
import { queryJson } from './jsonpath.js';
import { compileRegex, firstCapture, showRegex } from './regex.js';
import { jsonText } from './values.js';

/** One value to compare, named for messages; `missing` says why there is none (the value is then undefined). */
export interface Selected {
  label: string;
  value: unknown;
  missing?: string;
}

/** What an assertion's source gives: one value, or several (a JSONPath with many matches) that must all hold. */
export type Selection = { items: Selected[]; many: boolean; options: CompareOptions } | { error: string };

const TEXT_SOURCES: Record<string, string> = {
  TEXT_BODY: 'body',
  RESPONSE_DATA: 'response data',
  TEXT_ANSWER: 'answer',
};

const JSON_SOURCES: Record<string, { label: string; invalid: string }> = {
  JSON_BODY: { label: 'JSON body', invalid: 'response body is not valid JSON' },
  JSON_ANSWER: { label: 'JSON answer', invalid: 'answer is not valid JSON' },
  JSON_RESPONSE: { label: 'JSON response', invalid: 'response is not valid JSON' },
};

const LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const;

/** The value(s) an assertion compares, with its regex applied. */
export function select(spec: AssertionSpec, context: EvaluationContext): Selection {
  const selection = selectFromSource(spec, context);
  const isText = Object.hasOwn(TEXT_SOURCES, spec.source);
  const pattern = spec.regex || (isText ? spec.property : '');
  if ('error' in selection || !pattern) return selection;
  if (spec.source === 'HEADERS' && spec.property === '') {
    return { error: 'a regex on HEADERS needs the header name in property' };
  }
  return applyRegex(selection, pattern, isText);
}

function selectFromSource(spec: AssertionSpec, context: EvaluationContext): Selection {
  const { subject } = context;
  const { source, property } = spec;
  if (source === 'STATUS_CODE') return offered(source, subject.statusCode, 'status code');
  if (source === 'RESPONSE_TIME') return offered(source, subject.responseTime, 'response time');
  if (source === 'RESPONSE_CODE')
    return offered(source, subject.responseCode, 'response code', { ignoreCase: true });
  if (source === 'HEADERS') return subject.headers ? headers(subject.headers, property) : unavailable(source);
  if (source === 'LATENCY') return subject.latency ? latency(subject.latency, property) : unavailable(source);
  const textLabel = own(TEXT_SOURCES, source);
  if (textLabel !== undefined) return offered(source, subject.text, textLabel);
  const json = own(JSON_SOURCES, source);
  if (json !== undefined) {
    if (!subject.json) return unavailable(source);
    const document = context.document();
    return document ? jsonPath(document.value, property, json.label) : { error: json.invalid };
  }
  return { error: `unknown assertion source ${JSON.stringify(source)}` };
}

/** A record's own entry: a source named `constructor` is no source. */
function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function offered(source: string, value: unknown, label: string, options: CompareOptions = {}): Selection {
  return value === undefined ? unavailable(source) : one({ label, value }, options);
}

function unavailable(source: string): Selection {
  return { error: `source ${source} is not available for this check` };
}

function one(item: Selected, options: CompareOptions = {}): Selection {
  return { items: [item], many: false, options };
}

/** By name, case-insensitively, multiple values joined with ', '; with no name, all of them by lower-case name. */
function headers(all: NonNullable<AssertionSubject['headers']>, property: string): Selection {
  const byName = new Map<string, string>();
  for (const [name, raw] of Object.entries(all)) {
    if (raw === undefined) continue;
    const key = name.toLowerCase();
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    const earlier = byName.get(key);
    byName.set(key, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  if (property === '')
    return one({ label: 'headers', value: Object.fromEntries(byName) }, { keysIgnoreCase: true });
  const label = `header ${property}`;
  const value = byName.get(property.toLowerCase());
  return one(value === undefined ? { label, value, missing: `${label} is missing` } : { label, value });
}

function latency(values: NonNullable<AssertionSubject['latency']>, property: string): Selection {
  if (!(LATENCY_PROPERTIES as readonly string[]).includes(property)) {
    return { error: `LATENCY property must be avg, min, max or stdDev, not ${JSON.stringify(property)}` };
  }
  return one({ label: `latency ${property}`, value: values[property as keyof typeof values] ?? null });
}

function jsonPath(document: unknown, path: string, documentLabel: string): Selection {
  const result = queryJson(document, path);
  if ('error' in result) return result;
  const label = path === '' ? documentLabel : path;
  const [first, ...others] = result.matches;
  if (!first) return one({ label, value: undefined, missing: `JSONPath ${path} matched nothing` });
  if (others.length === 0) return one({ label, value: first.value });
  return {
    items: result.matches.map((match) => ({ label: match.path, value: match.value })),
    many: true,
    options: {},
  };
}

/** Replaces each value by the regex's first capture group (or whole match) in its text. */
function applyRegex(
  selection: Extract<Selection, { items: Selected[] }>,
  pattern: string,
  isText: boolean,
): Selection {
  const compiled = compileRegex(pattern);
  if ('error' in compiled) return compiled;
  const shown = showRegex(pattern);
  const items = selection.items.map((item): Selected => {
    if (item.missing !== undefined) return item;
    const label = `match of ${shown} in ${item.label}`;
    const value = firstCapture(compiled.regex, jsonText(item.value));
    if (value !== undefined) return { label, value };
    return { label, value, missing: `regex ${shown} did not match${isText ? '' : ` ${item.label}`}` };
  });
  return { ...selection, items };
}

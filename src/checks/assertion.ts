import { z } from 'zod';

/** The 14 comparisons of docs/checks.md. */
export const ALL_COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'LESS_THAN',
  'GREATER_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
] as const;
export type Comparison = (typeof ALL_COMPARISONS)[number];

const KEY_VALUE_COMPARISONS = ['HAS_KEY', 'NOT_HAS_KEY', 'HAS_VALUE', 'NOT_HAS_VALUE'];

/** Which assertion sources and comparisons each kind accepts (docs/checks.md, Assertions). */
export const ASSERTION_RULES = {
  API: {
    sources: ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'],
    comparisons: ALL_COMPARISONS,
  },
  URL: { sources: ['STATUS_CODE'], comparisons: ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN'] },
  TCP: {
    sources: ['RESPONSE_DATA', 'RESPONSE_TIME'],
    comparisons: [
      'EQUALS',
      'NOT_EQUALS',
      'IS_EMPTY',
      'NOT_EMPTY',
      'LESS_THAN',
      'GREATER_THAN',
      'CONTAINS',
      'NOT_CONTAINS',
    ],
  },
  DNS: {
    sources: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'],
    comparisons: ALL_COMPARISONS,
  },
  ICMP: {
    sources: ['LATENCY', 'JSON_RESPONSE'],
    comparisons: ALL_COMPARISONS.filter((c) => !KEY_VALUE_COMPARISONS.includes(c)),
  },
} as const satisfies Record<string, { sources: readonly string[]; comparisons: readonly Comparison[] }>;

export type AssertionKind = keyof typeof ASSERTION_RULES;

export const LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const;

/** An assertion of one kind: `{source, property, comparison, target, regex}`. */
export function assertionSchema(kind: AssertionKind) {
  const rules = ASSERTION_RULES[kind];
  return z
    .strictObject({
      source: z.enum(rules.sources as unknown as [string, ...string[]]),
      property: z.string().default(''),
      comparison: z.enum(rules.comparisons as unknown as [Comparison, ...Comparison[]]),
      target: z.union([z.string(), z.number(), z.boolean()]).transform(String).default(''),
      regex: z.string().nullable().default(null),
    })
    .superRefine((a, ctx) => {
      if (a.source === 'LATENCY' && !(LATENCY_PROPERTIES as readonly string[]).includes(a.property)) {
        ctx.addIssue({
          code: 'custom',
          path: ['property'],
          message: `must be one of ${LATENCY_PROPERTIES.join(', ')} for a LATENCY assertion`,
        });
      }
      const isJsonSource = a.source.startsWith('JSON_');
      if (isJsonSource && a.property !== '' && !a.property.startsWith('$')) {
        ctx.addIssue({ code: 'custom', path: ['property'], message: 'must be a JSONPath starting with $' });
      }
      for (const field of ['regex', 'property'] as const) {
        const pattern = field === 'regex' ? a.regex : a.property;
        const isRegexField =
          field === 'regex' || ['TEXT_BODY', 'RESPONSE_DATA', 'TEXT_ANSWER'].includes(a.source);
        if (pattern && isRegexField) {
          try {
            new RegExp(pattern);
          } catch {
            ctx.addIssue({ code: 'custom', path: [field], message: 'must be a valid regular expression' });
          }
        }
      }
    });
}

export type Assertion = {
  source: string;
  property: string;
  comparison: Comparison;
  target: string;
  regex: string | null;
};

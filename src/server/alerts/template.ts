import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc.js';
import Handlebars from 'handlebars';

dayjs.extend(utc);

/**
 * Handlebars for alert templates: `{{VAR}}`, `{{#if}}`, `{{#each}}`, and helpers users expect — `moment` (date
 * formatting with moment/dayjs tokens, in UTC), `json` (a value as JSON), `eq`. Nothing is HTML-escaped: a webhook
 * body is not HTML. A template that is a JSON document gets every string value JSON-escaped instead, so an error
 * message with quotes or line breaks keeps the document valid.
 */
const handlebars = Handlebars.create();

handlebars.registerHelper('moment', (value: unknown, format: unknown) => {
  const date = dayjs.utc(value instanceof Date ? value : String(value ?? ''));
  if (!date.isValid()) return '';
  return typeof format === 'string' ? date.format(format) : date.toISOString();
});
handlebars.registerHelper('json', (value: unknown, options: Handlebars.HelperOptions) =>
  options.data?.jsonTemplate ? jsonOfEscaped(value) : JSON.stringify(value ?? null),
);
handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);

/** Whether a template is (meant to be) a JSON document. */
function isJsonTemplate(template: string): boolean {
  return /^\s*[[{]/.test(template);
}

/** A JSON string's inside: what goes between its quotes. */
const jsonInside = (text: string) => JSON.stringify(text).slice(1, -1);

function jsonEscaped(value: unknown): unknown {
  if (typeof value === 'string') return jsonInside(value);
  if (Array.isArray(value)) return value.map(jsonEscaped);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonEscaped(v)]));
  }
  return value;
}

/** JSON of a value whose strings are JSON-escaped already (the values of a JSON template). */
function jsonOfEscaped(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (Array.isArray(value)) return `[${value.map(jsonOfEscaped).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonOfEscaped(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Handlebars' parse errors span lines (the text, a caret, what was expected): one line of it. */
function oneLine(error: unknown): string {
  return (error as Error).message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^-*\^$/.test(line))
    .join(' ')
    .slice(0, 300);
}

export class TemplateError extends Error {}

/** Renders `template` with `variables`; a template that does not compile throws a TemplateError naming why. */
export function renderTemplate(template: string, variables: Record<string, unknown>): string {
  const json = isJsonTemplate(template);
  try {
    const render = handlebars.compile(template, { noEscape: true, strict: false });
    return json ? render(jsonEscaped(variables), { data: { jsonTemplate: true } }) : render(variables);
  } catch (error) {
    throw new TemplateError(`the template does not render: ${oneLine(error)}`);
  }
}

/** Checks that a template compiles; the message names the problem. */
export function templateProblem(template: string): string | null {
  try {
    handlebars.precompile(template);
    return null;
  } catch (error) {
    return oneLine(error);
  }
}

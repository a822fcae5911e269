import Handlebars from 'handlebars';
import type { AlertVariables } from '../variables.js';

/** The facts of an alert as label/value lines, for channels that show text to a person. */
export function alertFacts(vars: AlertVariables): [string, string][] {
  const facts: [string, string | number | null][] = [
    ['Check', `${vars.CHECK_NAME} (${vars.CHECK_TYPE})`],
    ['Group', vars.GROUP_NAME],
    ['Location', vars.RUN_LOCATION],
    ['Error', vars.CHECK_ERROR_MESSAGE],
    [
      'Response',
      vars.API_CHECK_RESPONSE_STATUS_CODE === null
        ? null
        : `${vars.API_CHECK_RESPONSE_STATUS_CODE} ${vars.API_CHECK_RESPONSE_STATUS_TEXT}`.trim(),
    ],
    ['Response time', vars.RESPONSE_TIME === null ? null : `${vars.RESPONSE_TIME} ms`],
    [
      'Certificate',
      vars.SSL_DAYS_REMAINING === null
        ? null
        : `${vars.SSL_DAYS_REMAINING} days left (${vars.SSL_CHECK_DOMAIN})`,
    ],
    ['Started', vars.STARTED_AT],
    ['Result', vars.RESULT_LINK],
  ];
  return facts
    .filter((f): f is [string, string] => f[1] !== null && f[1] !== '')
    .map(([k, v]) => [k, String(v)]);
}

/** The alert as plain text: its title, then one line per fact. */
export function alertText(vars: AlertVariables): string {
  return [vars.ALERT_TITLE, '', ...alertFacts(vars).map(([k, v]) => `${k}: ${v}`)].join('\n');
}

/** The alert as a short line (SMS, voice): title and error. */
export function alertLine(vars: AlertVariables, max = 300): string {
  const line = vars.CHECK_ERROR_MESSAGE
    ? `${vars.ALERT_TITLE}: ${vars.CHECK_ERROR_MESSAGE}`
    : vars.ALERT_TITLE;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const html = Handlebars.compile(
  `<h2>{{title}}</h2><table>{{#each facts}}<tr><th align="left">{{this.[0]}}</th><td>{{this.[1]}}</td></tr>{{/each}}</table>`,
);

/** The alert as an HTML mail body, every value escaped. */
export function alertHtml(vars: AlertVariables): string {
  return html({ title: vars.ALERT_TITLE, facts: alertFacts(vars) });
}

import { failureOf } from '../../checks/index.js';
import type { ResultRow, SessionRow } from '../sessions/store.js';
import { responseStatusOf, tlsOf } from './session-outcome.js';
import type { AlertType } from './state-machine.js';

/** The template variables of a notification (docs/alerting.md, Template variables), as stored with it. */
export interface AlertVariables {
  ALERT_TITLE: string;
  ALERT_TYPE: AlertType;
  CHECK_NAME: string;
  CHECK_ID: string;
  CHECK_TYPE: string;
  CHECK_RESULT_ID: string | null;
  CHECK_ERROR_MESSAGE: string | null;
  RESPONSE_TIME: number | null;
  API_CHECK_RESPONSE_STATUS_CODE: number | null;
  API_CHECK_RESPONSE_STATUS_TEXT: string;
  RUN_LOCATION: string | null;
  /** Filled in when the notification is sent, from the server's PUBLIC_URL. */
  RESULT_LINK: string | null;
  SSL_DAYS_REMAINING: number | null;
  SSL_CHECK_DOMAIN: string | null;
  STARTED_AT: string;
  GROUP_NAME: string | null;
  TAGS: string[];
}

/** What a notification tells about its check, besides the session's result. */
export interface CheckFacts {
  id: string;
  name: string;
  checkType: string;
  groupName: string | null;
  tags: string[];
  /** The check's `sslCheckDomain`, when it names one. */
  sslCheckDomain: string | null;
}

export function alertTitle(
  type: AlertType,
  vars: Pick<AlertVariables, 'CHECK_NAME' | 'SSL_CHECK_DOMAIN' | 'SSL_DAYS_REMAINING'>,
): string {
  const name = `"${vars.CHECK_NAME}"`;
  switch (type) {
    case 'ALERT_FAILURE':
      return `${name} is failing`;
    case 'ALERT_FAILURE_REMAIN':
      return `${name} is still failing`;
    case 'ALERT_FAILURE_DEGRADED':
      return `${name} is no longer failing but degraded`;
    case 'ALERT_RECOVERY':
      return `${name} has recovered`;
    case 'ALERT_DEGRADED':
      return `${name} is degraded`;
    case 'ALERT_DEGRADED_RECOVERY':
      return `${name} is no longer degraded`;
    case 'ALERT_SSL':
      return `The certificate of ${vars.SSL_CHECK_DOMAIN ?? name} expires in ${vars.SSL_DAYS_REMAINING} days`;
  }
}

/** The variables of an alert about `check`, told by `result` of `session` (either may be absent: a sample). */
export function alertVariables(
  type: AlertType,
  check: CheckFacts,
  session: Pick<SessionRow, 'started_at'> | null,
  result: ResultRow | undefined,
  now: Date,
): AlertVariables {
  const record = result?.record;
  const tls = record ? tlsOf(record) : null;
  const status = record ? responseStatusOf(record) : { code: null, text: '' };
  const vars: Omit<AlertVariables, 'ALERT_TITLE'> = {
    ALERT_TYPE: type,
    CHECK_NAME: check.name,
    CHECK_ID: check.id,
    CHECK_TYPE: check.checkType,
    CHECK_RESULT_ID: record?.checkResultId ?? result?.id ?? null,
    CHECK_ERROR_MESSAGE: record ? failureOf(record) : null,
    RESPONSE_TIME: record ? Math.round(record.responseTime) : null,
    API_CHECK_RESPONSE_STATUS_CODE: status.code,
    API_CHECK_RESPONSE_STATUS_TEXT: status.text,
    RUN_LOCATION: result?.location ?? null,
    RESULT_LINK: null,
    SSL_DAYS_REMAINING: tls?.daysRemaining ?? null,
    SSL_CHECK_DOMAIN: check.sslCheckDomain ?? (tls ? hostOf(record) : null),
    STARTED_AT: (session?.started_at ?? now).toISOString(),
    GROUP_NAME: check.groupName,
    TAGS: check.tags,
  };
  return { ALERT_TITLE: alertTitle(type, vars), ...vars };
}

/** The host an API or URL check's request went to. */
function hostOf(record: Record<string, unknown> | undefined): string | null {
  const detail = record?.apiCheckResult as { request?: { url?: unknown } } | undefined;
  const url = detail?.request?.url;
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

export { runContext } from '../../support/execution.js';

import type { ApiCheckResult } from '../../../src/checks/index.js';
import { apiCheckSchema, type CheckOf, urlCheckSchema } from '../../../src/checks/index.js';
import type { Attempt } from '../../../src/executors/types.js';

/** An API check with every default applied; `request` and top-level fields as the check file would say. */
export function apiCheck(
  request: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): CheckOf<'API'> {
  return apiCheckSchema.parse({ name: 'api test', checkType: 'API', request, ...fields });
}

export function urlCheck(
  request: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): CheckOf<'URL'> {
  return urlCheckSchema.parse({ name: 'url test', checkType: 'URL', request, ...fields });
}

export function apiResult(attempt: Attempt): ApiCheckResult {
  if (!('apiCheckResult' in attempt.detail)) throw new Error('no apiCheckResult in the attempt');
  return attempt.detail.apiCheckResult;
}

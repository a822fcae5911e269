import type { Executor } from '../types.js';
import { runHttpCheck } from './run.js';

/** URL monitors: a GET whose status (and response time) is checked; no body is read. */
export const executeUrl: Executor<'URL'> = (check, context) => runHttpCheck(check, context);

/** API checks: any method, headers, query, body and auth; the body is read (up to 25 MB) for assertions. */
export const executeApi: Executor<'API'> = (check, context) => runHttpCheck(check, context);

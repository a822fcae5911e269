import { type Check, parseCheck, VariableSet } from '../../src/checks/index.js';
import { defaultExecutors } from '../../src/executors/registry.js';
import { runAttempt } from '../../src/executors/run/attempt.js';

/** The API check both measurements run: a GET of `url`, at the bench's private location. */
export const apiCheck = (url: string) => ({
  checkType: 'API',
  name: 'bench',
  activated: false,
  doubleCheck: false,
  privateLocations: ['bench'],
  request: { url, method: 'GET' },
});

/** `apiCheck(url)`, parsed as the executors take it. */
export function parsedApiCheck(url: string): Check {
  const parsed = parseCheck(apiCheck(url));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

/** One attempt of `check` by the executors alone: nothing of the agent around it. */
export function runCheckAlone(check: Check) {
  return runAttempt(check, {
    executors: defaultExecutors,
    variables: new VariableSet(),
    mask: (text) => text,
    runLocation: 'bench',
    clientCertificates: [],
  });
}

// Helpers a browser or multi-step check script imports. The runner reads what they record from the test's
// annotations in Playwright's JSON report, so they work in any worker and need no channel of their own.

const DEGRADED = 'vantage:degraded';

function currentTestInfo(helper) {
  const { test } = require('@playwright/test');
  try {
    return test.info();
  } catch {
    throw new Error(`${helper}() can only be called inside a test or one of its hooks`);
  }
}

/** Marks the run degraded (it still passes unless something fails); the reason appears in the result. */
function markCheckAsDegraded(reason) {
  const description = reason === undefined ? 'marked degraded by the script' : String(reason);
  currentTestInfo('markCheckAsDegraded').annotations.push({ type: DEGRADED, description });
}

module.exports = { markCheckAsDegraded, DEGRADED_ANNOTATION: DEGRADED };

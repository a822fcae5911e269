// Loaded by the run's generated Playwright config (in the runner and in each worker): records what the pages of
// the run say (console messages, uncaught page errors, failed requests) as JSON lines for the run's log.

const { appendFileSync } = require('node:fs');

const MAX_TEXT = 2000;

function recorder(file) {
  return (level, source, text) => {
    const line = { time: new Date().toISOString(), level, source, text: String(text).slice(0, MAX_TEXT) };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // The run's folder is gone: the run is over.
    }
  };
}

const CONSOLE_LEVELS = { error: 'ERROR', warning: 'WARN', info: 'INFO', log: 'INFO', debug: 'DEBUG' };

function watchPage(page, record) {
  page.on('pageerror', (error) => record('ERROR', 'page error', error.stack || error.message));
  page.on('console', (message) => {
    record(CONSOLE_LEVELS[message.type()] || 'INFO', `console.${message.type()}`, message.text());
  });
  page.on('requestfailed', (request) => {
    const failure = request.failure();
    record(
      'WARN',
      'request failed',
      `${request.method()} ${request.url()}: ${failure ? failure.errorText : 'failed'}`,
    );
  });
}

/** Starts recording for every browser context the run creates; `file` is the run's events file. */
function recordPageEvents(file) {
  const record = recorder(file);
  const playwright = require('playwright-core');
  playwright._instrumentation.addListener({
    runAfterCreateBrowserContext: async (context) => {
      for (const page of context.pages()) watchPage(page, record);
      context.on('page', (page) => watchPage(page, record));
    },
  });
}

module.exports = { recordPageEvents };

// The reporter that makes a run's log: each test's start and end, and everything tests print, as it happens.
// It says it prints to stdio so that Playwright adds no reporter of its own; the JSON reporter beside it
// writes the report the runner reads.

// titlePath() is ['', project, file, …describe blocks, title].
function titleOf(test) {
  const [, project, , ...titles] = test.titlePath();
  return `${project ? `[${project}] ` : ''}${titles.join(' › ')}`;
}

class LogReporter {
  printsToStdio() {
    return true;
  }

  onTestBegin(test) {
    process.stdout.write(`▶ ${titleOf(test)}\n`);
  }

  onStdOut(chunk) {
    process.stdout.write(chunk);
  }

  onStdErr(chunk) {
    process.stderr.write(chunk);
  }

  onTestEnd(test, result) {
    process.stdout.write(`${result.status}: ${titleOf(test)} (${result.duration} ms)\n`);
  }
}

module.exports = LogReporter;

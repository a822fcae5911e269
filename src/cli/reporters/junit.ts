import { writeFile } from 'node:fs/promises';
import type { create as XmlCreate } from 'xmlbuilder2';
import { type CheckSession, failureOf } from '../../checks/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';

const FAILING = new Set(['FAILED', 'TIMED_OUT']);

/** The batch as JUnit XML: one testcase per check session, written to the output file at the end. */
export function junitReporter({ output }: ReporterOptions): Reporter {
  if (!output) throw new Error('--reporter junit needs --output FILE');
  const sessions: CheckSession[] = [];
  return {
    onSession: (session) => {
      sessions.push(session);
    },
    async onEnd() {
      // Loaded here: the XML builder is a large library that only this reporter needs.
      const { create } = await import('xmlbuilder2');
      await writeFile(output, junitXml(create, sessions));
    },
  };
}

function junitXml(create: typeof XmlCreate, sessions: readonly CheckSession[]): string {
  const failures = sessions.filter((s) => FAILING.has(s.status)).length;
  const skipped = sessions.filter((s) => s.status === 'CANCELLED').length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const suites = doc.ele('testsuites', {
    name: 'vantage',
    tests: sessions.length,
    failures,
    time: seconds(sessions.reduce((sum, s) => sum + s.timeElapsed, 0)),
  });
  const suite = suites.ele('testsuite', {
    name: 'vantage run',
    tests: sessions.length,
    failures,
    errors: 0,
    skipped,
    timestamp: sessions[0]?.startedAt ?? new Date().toISOString(),
    time: seconds(sessions.reduce((sum, s) => sum + s.timeElapsed, 0)),
  });
  for (const session of sessions) {
    const testcase = suite.ele('testcase', {
      classname: session.checkType,
      name: session.name,
      time: seconds(session.timeElapsed),
    });
    const final = session.results.at(-1);
    const reason = final ? failureOf(final) : null;
    if (FAILING.has(session.status)) {
      testcase.ele('failure', { message: reason ?? session.status, type: session.status }).txt(reason ?? '');
    } else if (session.status === 'CANCELLED') {
      testcase.ele('skipped', { message: 'cancelled' });
    } else if (session.status === 'DEGRADED') {
      testcase.ele('system-out').txt(`DEGRADED${reason ? `: ${reason}` : ''}`);
    }
  }
  return doc.end({ prettyPrint: true });
}

import { failureOf, type SessionStatus } from '../../checks/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';

const MARKS: Record<SessionStatus | 'RUNNING', string> = {
  PASSED: '✔',
  DEGRADED: '⚠',
  FAILED: '✖',
  TIMED_OUT: '⏱',
  CANCELLED: '⊘',
  RUNNING: '…',
};

function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}

/** One readable line per check as it finishes, and a summary at the end. */
export function listReporter({ write }: ReporterOptions): Reporter {
  const counts = new Map<string, number>();
  let total = 0;
  return {
    onSession(session) {
      counts.set(session.status, (counts.get(session.status) ?? 0) + 1);
      total++;
      const final = session.results.at(-1);
      const time = final ? formatMs(final.responseTime) : '';
      const retries = session.results.length > 1 ? `, ${session.results.length} attempts` : '';
      let line = `${MARKS[session.status]} ${session.status.padEnd(9)} ${session.name} (${session.checkType}) ${time}${retries}`;
      if (final && session.status !== 'PASSED') {
        const reason = failureOf(final);
        if (reason) line += `\n    ${reason}`;
      }
      write(`${line}\n`);
    },
    async onEnd() {
      const parts = ['PASSED', 'DEGRADED', 'FAILED', 'TIMED_OUT', 'CANCELLED']
        .filter((s) => counts.has(s))
        .map((s) => `${counts.get(s)} ${s.toLowerCase().replace('_', ' ')}`);
      write(`\n${total} check${total === 1 ? '' : 's'}: ${parts.join(', ') || 'none run'}\n`);
    },
  };
}

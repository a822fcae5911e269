import { readFile } from 'node:fs/promises';
import { stripAnsi } from '../../runtimes/index.js';

/** The parts of Playwright's JSON report (reporter `json`) that a result is made of. */
export interface JsonReport {
  suites?: JsonSuite[];
  errors?: JsonError[];
  stats?: { startTime?: string; duration?: number };
}

interface JsonSuite {
  title: string;
  file?: string;
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

interface JsonSpec {
  title: string;
  file?: string;
  line?: number;
  tags?: string[];
  tests?: JsonTest[];
}

interface JsonTest {
  projectName?: string;
  status?: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  annotations?: Annotation[];
  results?: JsonResult[];
}

interface JsonResult {
  status?: TestStatus;
  duration?: number;
  retry?: number;
  errors?: JsonError[];
  attachments?: { name: string; contentType: string; path?: string }[];
  annotations?: Annotation[];
}

interface JsonError {
  message?: string;
  stack?: string;
}

interface Annotation {
  type: string;
  description?: string;
}

type TestStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';

/** One test of a run as a result's `tests` lists it. */
export interface TestOutcome {
  title: string;
  /** File, describe blocks and title. */
  titlePath: string[];
  project: string;
  tags: string[];
  /** Of its last try. */
  status: TestStatus;
  /** expected, unexpected (it failed), flaky (it passed on a retry) or skipped. */
  outcome: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  durationMs: number;
  retries: number;
  errors: string[];
  annotations: Annotation[];
}

/** A file a test attached (screenshot, trace, video, …). */
export interface ReportAttachment {
  name: string;
  contentType: string;
  path: string;
  /** Who attached it, for the artifact's name. */
  test: { title: string; project: string; retry: number };
}

/** What a run's report says, in the terms of a result. */
export interface ReportSummary {
  tests: TestOutcome[];
  /** Why the run failed: each failing test's errors, and errors outside tests. */
  errors: string[];
  /** Errors outside any test (a script that does not load, no tests found). */
  globalErrors: string[];
  attachments: ReportAttachment[];
  /** Reasons given by markCheckAsDegraded. */
  degraded: string[];
  failed: boolean;
  durationMs: number;
}

export const DEGRADED_ANNOTATION = 'vantage:degraded';

/** Longest error text kept. */
const MAX_ERROR = 4000;

/** The report at `path`, or null when the run ended before writing it. */
export async function readReport(path: string): Promise<JsonReport | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as JsonReport;
  } catch {
    return null;
  }
}

function errorText(error: JsonError, root: string): string {
  const text = stripAnsi(error.message ?? error.stack ?? 'unknown error')
    .split(root)
    .join('')
    .trim();
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR)}…` : text;
}

function* specsOf(suite: JsonSuite, path: string[]): Generator<{ spec: JsonSpec; path: string[] }> {
  for (const spec of suite.specs ?? []) yield { spec, path };
  for (const child of suite.suites ?? []) yield* specsOf(child, [...path, child.title]);
}

/**
 * Turns a report into tests, errors, attachments and degraded reasons. `root` (the run's folder, with a
 * trailing slash) is cut from the paths in error texts.
 */
export function summarizeReport(report: JsonReport, root = ''): ReportSummary {
  const summary: ReportSummary = {
    tests: [],
    errors: [],
    globalErrors: (report.errors ?? []).map((e) => errorText(e, root)),
    attachments: [],
    degraded: [],
    failed: false,
    durationMs: Math.round(report.stats?.duration ?? 0),
  };
  for (const file of report.suites ?? []) {
    for (const { spec, path } of specsOf(file, [file.title])) {
      for (const test of spec.tests ?? []) addTest(summary, spec, path, test, root);
    }
  }
  if (summary.tests.length === 0 && summary.globalErrors.length === 0) {
    summary.globalErrors.push('no test was found to run');
  }
  summary.errors.push(...summary.globalErrors);
  summary.failed = summary.errors.length > 0;
  return summary;
}

function addTest(summary: ReportSummary, spec: JsonSpec, path: string[], test: JsonTest, root: string): void {
  const results = test.results ?? [];
  const last = results.at(-1);
  const project = test.projectName ?? '';
  const titlePath = [...path, spec.title];
  const label = `${project ? `[${project}] ` : ''}${titlePath.slice(1).join(' › ')}`;
  const annotations = new Map<string, Annotation>();
  for (const a of [...(test.annotations ?? []), ...results.flatMap((r) => r.annotations ?? [])]) {
    annotations.set(`${a.type}\0${a.description ?? ''}`, a);
  }
  const errors = (last?.errors ?? []).map((e) => errorText(e, root));
  const outcome = test.status ?? (last?.status === 'passed' ? 'expected' : 'unexpected');
  summary.tests.push({
    title: spec.title,
    titlePath,
    project,
    tags: spec.tags ?? [],
    status: last?.status ?? 'skipped',
    outcome,
    durationMs: results.reduce((sum, r) => sum + (r.duration ?? 0), 0),
    retries: Math.max(0, results.length - 1),
    errors,
    annotations: [...annotations.values()],
  });
  if (outcome === 'unexpected') {
    const why = errors.length > 0 ? errors : [`the test ended ${last?.status ?? 'without running'}`];
    summary.errors.push(...why.map((e) => `${label}: ${e}`));
  }
  for (const a of annotations.values()) {
    if (a.type === DEGRADED_ANNOTATION) summary.degraded.push(a.description ?? label);
  }
  for (const result of results) {
    for (const attachment of result.attachments ?? []) {
      if (!attachment.path) continue;
      summary.attachments.push({
        name: attachment.name,
        contentType: attachment.contentType,
        path: attachment.path,
        test: { title: spec.title, project, retry: result.retry ?? 0 },
      });
    }
  }
}

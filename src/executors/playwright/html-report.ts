import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalArtifact } from '../types.js';

const run = promisify(execFile);

export const HTML_REPORT_NAME = 'playwright-report.tar.gz';

/** Packs Playwright's HTML report folder into one artifact (open `index.html` after unpacking it). */
export async function packHtmlReport(reportDir: string, artifactsDir: string): Promise<LocalArtifact | null> {
  if (!existsSync(join(reportDir, 'index.html'))) return null;
  const path = join(artifactsDir, HTML_REPORT_NAME);
  try {
    await run('tar', ['-czf', path, '-C', reportDir, '.']);
    const { size } = await stat(path);
    return { name: HTML_REPORT_NAME, contentType: 'application/gzip', size, path };
  } catch {
    return null;
  }
}

import { copyFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { Asset } from '../../checks/index.js';
import type { LocalArtifact } from '../types.js';
import type { ReportAttachment } from './report.js';

/** Artifact names are plain file names (the control plane's rule): letters, digits, `.`, `_`, `-`. */
const NAME_MAX = 200;

/** `text` as a file-name part: runs of other characters become `-`. */
export function slug(text: string, max: number): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, max);
}

/** A name no other artifact of the run has, ending like `path` (`.png`, `.zip`, …). */
function uniqueName(wanted: string, extension: string, taken: Set<string>): string {
  const ext = slug(extension, 16);
  const base = slug(wanted, NAME_MAX - ext.length - 6) || 'artifact';
  let name = `${base}${ext ? `.${ext}` : ''}`;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}${ext ? `.${ext}` : ''}`;
  taken.add(name);
  return name;
}

/**
 * Moves the files tests attached into `dir`, each named after its test and what it is
 * (`home-page-screenshot.png`, `chromium-login-retry1-trace.zip`). Files that are gone are skipped.
 */
export async function collectAttachments(
  attachments: readonly ReportAttachment[],
  dir: string,
  taken = new Set<string>(),
): Promise<LocalArtifact[]> {
  const collected: LocalArtifact[] = [];
  for (const attachment of attachments) {
    const info = await stat(attachment.path).catch(() => null);
    if (!info?.isFile()) continue;
    const { title, project, retry } = attachment.test;
    const wanted = [project, title, retry > 0 ? `retry${retry}` : '', attachment.name]
      .filter(Boolean)
      .join('-');
    const name = uniqueName(wanted, extname(attachment.path).slice(1), taken);
    const path = join(dir, name);
    await moveFile(attachment.path, path);
    collected.push({ name, contentType: attachment.contentType, size: info.size, path });
  }
  return collected;
}

/** Pictures a script saved itself (`page.screenshot({ path })`), by extension. */
const PICTURES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};
/** At most this many of them are kept a run. */
const MAX_SAVED_PICTURES = 20;
/** Folders of the working folder that hold no picture of the script's: the runtime's packages, Playwright's output. */
const NOT_SEARCHED = ['node_modules', 'test-results'];

/**
 * Moves the pictures a script saved in its working folder (`page.screenshot({ path: 'home.png' })`) into
 * `dir`, named after their path there (`shots/cart.png` → `shots-cart.png`); the first 20 it saved.
 */
export async function collectSavedPictures(
  workDir: string,
  dir: string,
  taken: Set<string>,
): Promise<LocalArtifact[]> {
  const found: { path: string; type: string; size: number; mtimeMs: number }[] = [];
  const entries = await readdir(workDir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    const top = relative(workDir, path).split('/')[0] ?? '';
    const type = PICTURES[extname(entry.name).slice(1).toLowerCase()];
    if (!entry.isFile() || !type || NOT_SEARCHED.includes(top)) continue;
    const info = await stat(path).catch(() => null);
    if (info) found.push({ path, type, size: info.size, mtimeMs: info.mtimeMs });
  }
  found.sort((a, b) => a.mtimeMs - b.mtimeMs);
  const collected: LocalArtifact[] = [];
  for (const picture of found.slice(0, MAX_SAVED_PICTURES)) {
    const wanted = relative(workDir, picture.path).slice(0, -extname(picture.path).length);
    const name = uniqueName(wanted, extname(picture.path).slice(1).toLowerCase(), taken);
    await moveFile(picture.path, join(dir, name));
    collected.push({ name, contentType: picture.type, size: picture.size, path: join(dir, name) });
  }
  return collected;
}

/** Moves a file; copies it where it may not be moved (a folder of the script's user, another file system). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch {
    await copyFile(from, to);
    await rm(from, { force: true }).catch(() => {});
  }
}

/** The result's assets for the artifacts; `url` is set by whoever uploads or keeps them. */
export function assetsOf(artifacts: readonly LocalArtifact[]): Asset[] {
  return artifacts.map(({ name, contentType, size }) => ({ name, contentType, size, url: null }));
}

import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobLogLine, ScriptCheckResult } from '../../checks/index.js';
import type { Attempt, LocalArtifact } from '../types.js';
import { slug } from './artifacts.js';

/** What the caller of an executor does with the files of an attempt: upload them, keep them, or remove them. */

/** Removes the files of artifacts, and their folder once it is empty. */
export async function discardArtifacts(artifacts: readonly LocalArtifact[] | undefined): Promise<void> {
  const folders = new Set<string>();
  for (const artifact of artifacts ?? []) {
    await rm(artifact.path, { force: true });
    folders.add(dirname(artifact.path));
  }
  for (const folder of folders) {
    // The run's folder goes too once nothing else is left in it.
    await rmdir(folder).catch(() => undefined);
    if (basename(folder) === 'artifacts') await rmdir(dirname(folder)).catch(() => undefined);
  }
}

/** Where each artifact went: its URL, or null and why not. */
export type ArtifactOutcome = { url: string | null; note?: string };

/**
 * The attempt with each asset's `url` filled from `outcomes` (by name); an artifact that was not kept gets a
 * WARN line in the log saying why.
 */
export function withAssetUrls(attempt: Attempt, outcomes: ReadonlyMap<string, ArtifactOutcome>): Attempt {
  const detail = Object.values(attempt.detail)[0] as Partial<ScriptCheckResult> | undefined;
  if (!detail?.assets) return attempt;
  const notes: JobLogLine[] = [];
  const assets = detail.assets.map((asset) => {
    const outcome = outcomes.get(asset.name);
    if (outcome?.note)
      notes.push({ time: new Date().toISOString(), level: 'WARN', msg: `${asset.name}: ${outcome.note}` });
    return { ...asset, url: outcome?.url ?? null };
  });
  const key = Object.keys(attempt.detail)[0] as string;
  const updated = { ...detail, assets, logs: [...(detail.logs ?? []), ...notes] };
  return { ...attempt, detail: { [key]: updated } as Attempt['detail'] };
}

/** Moves a file, copying it when `to` is on another file system. */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

/**
 * Settles an attempt's files where no control plane takes them (`vantage run`): moved into `dir`, with each
 * asset's `url` the file's URL, or removed when there is no `dir`. The attempt returned holds no artifacts.
 */
export async function keepArtifacts(attempt: Attempt, dir: string | null): Promise<Attempt> {
  const artifacts = attempt.artifacts;
  if (!artifacts?.length) return attempt;
  try {
    if (!dir) return { ...attempt, artifacts: undefined };
    await mkdir(dir, { recursive: true });
    const outcomes = new Map<string, ArtifactOutcome>();
    for (const artifact of artifacts) {
      const path = join(dir, artifact.name);
      await move(artifact.path, path);
      outcomes.set(artifact.name, { url: pathToFileURL(path).href });
    }
    return { ...withAssetUrls(attempt, outcomes), artifacts: undefined };
  } finally {
    await discardArtifacts(artifacts);
  }
}

/** A new folder name for the files of one check's session: its name and a random suffix. */
export function artifactFolderName(checkName: string): string {
  return `${slug(checkName, 60) || 'check'}-${randomBytes(3).toString('hex')}`;
}

import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { cp, mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Largest bundle downloaded. */
const MAX_BUNDLE_BYTES = 500 * 1024 * 1024;

/** Folders not copied from a local project: they are made again by the install. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * Puts the check suite's code into `dest` and returns the project's folder (the bundle's single top folder,
 * when it has one and no package.json beside it). `source` is an http(s) URL of a .tar.gz (the control plane
 * serves bundles so), a local .tar.gz, or a local folder; a relative path is taken from the working folder.
 */
export async function unpackBundle(
  source: string,
  dest: string,
  scratch: string,
  signal: AbortSignal,
): Promise<string> {
  await mkdir(dest, { recursive: true });
  if (/^https?:\/\//i.test(source)) {
    const archive = join(scratch, 'bundle.tar.gz');
    await download(source, archive, signal);
    await extract(archive, dest, signal);
  } else {
    const path = resolve(source);
    const info = await stat(path).catch(() => null);
    if (!info) throw new Error(`the code bundle ${source} does not exist`);
    if (info.isDirectory()) {
      await cp(path, dest, { recursive: true, filter: (src) => !SKIPPED.has(basename(src)) || src === path });
    } else {
      await extract(path, dest, signal);
    }
  }
  return projectRoot(dest);
}

async function download(url: string, file: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) {
    throw new Error(`the code bundle could not be fetched: the server answered ${response.status}`);
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_BUNDLE_BYTES) throw new Error(`the code bundle is larger than ${MAX_BUNDLE_BYTES} bytes`);
  let received = 0;
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_BUNDLE_BYTES)
      body.destroy(new Error(`the code bundle is larger than ${MAX_BUNDLE_BYTES} bytes`));
  });
  await pipeline(body, createWriteStream(file), { signal });
}

/** GNU tar refuses members with `..` or an absolute path, so nothing lands outside `dest`. */
async function extract(archive: string, dest: string, signal: AbortSignal): Promise<void> {
  try {
    await run('tar', ['-xzf', archive, '-C', dest, '--no-same-owner', '--no-same-permissions'], { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const detail = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split('\n')[0];
    throw new Error(`the code bundle is not a readable .tar.gz: ${detail}`);
  }
}

async function projectRoot(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const only = entries.length === 1 ? entries[0] : undefined;
  return only?.isDirectory() ? join(dir, only.name) : dir;
}

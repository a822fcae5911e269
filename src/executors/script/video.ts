import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';

const DEBIAN_FFMPEG = '/usr/bin/ffmpeg';

/**
 * Lets the runtime's Playwright record videos with the system's ffmpeg: Playwright looks for its own ffmpeg
 * build under PLAYWRIGHT_BROWSERS_PATH, so a folder is laid out there that points at the system's. Returns
 * that folder, or null when there is no ffmpeg (videos then fail with Playwright's own message).
 */
export async function ffmpegBrowsersPath(
  nodeModules: string,
  configured: string | null,
  dir: string,
): Promise<string | null> {
  const ffmpeg = configured ?? (existsSync(DEBIAN_FFMPEG) ? DEBIAN_FFMPEG : null);
  if (!ffmpeg) return null;
  try {
    const browsers = JSON.parse(
      await readFile(join(nodeModules, 'playwright-core', 'browsers.json'), 'utf8'),
    ) as {
      browsers: { name: string; revision: string }[];
    };
    const revision = browsers.browsers.find((b) => b.name === 'ffmpeg')?.revision;
    if (!revision) return null;
    const folder = join(dir, `ffmpeg-${revision}`);
    await mkdir(folder, { recursive: true });
    await symlink(ffmpeg, join(folder, 'ffmpeg-linux'));
    return dir;
  } catch {
    return null;
  }
}

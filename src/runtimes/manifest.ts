import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** `manifest.json` of a runtime: what a script running on it may import. */
export const runtimeManifestSchema = z.object({
  runtimeId: z.string().regex(/^\d{4}\.\d{2}$/),
  description: z.string(),
  /** The Playwright version scripts run with. */
  playwright: z.string(),
  /** Every package a script may import, with its exact version. */
  packages: z.record(z.string(), z.string()),
  /** Variables every script finds in its environment. */
  environment: z.array(z.string()),
});
export type RuntimeManifest = z.infer<typeof runtimeManifestSchema>;

export const MANIFEST_FILE = 'manifest.json';

/** The manifest of the runtime in `dir`, or why it cannot be read. */
export function readManifest(dir: string): RuntimeManifest | Error {
  try {
    const parsed = runtimeManifestSchema.safeParse(
      JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')),
    );
    return parsed.success ? parsed.data : new Error(`${MANIFEST_FILE}: ${parsed.error.message}`);
  } catch (error) {
    return error as Error;
  }
}

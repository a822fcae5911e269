import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `manifest.json` of a runtime: what a script running on it may import. */
export interface RuntimeManifest {
  /** Like `2026.04`. */
  runtimeId: string;
  description: string;
  /** The Playwright version scripts run with. */
  playwright: string;
  /** Every package a script may import, with its exact version. */
  packages: Record<string, string>;
  /** Variables every script finds in its environment. */
  environment: string[];
}

export const MANIFEST_FILE = 'manifest.json';

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * What is wrong with a manifest, field by field (none: it is one). Checked by hand rather than with zod: the agent
 * reads the manifests at start, and zod is not loaded then (docs/performance.md, "Agent start-up and memory").
 */
function manifestProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['must be an object'];
  const m = value as Record<string, unknown>;
  const problems: string[] = [];
  if (!isString(m.runtimeId) || !/^\d{4}\.\d{2}$/.test(m.runtimeId)) {
    problems.push('runtimeId: must be text like 2026.04');
  }
  for (const field of ['description', 'playwright'] as const) {
    if (!isString(m[field])) problems.push(`${field}: must be text`);
  }
  const packages = m.packages;
  if (
    typeof packages !== 'object' ||
    packages === null ||
    Array.isArray(packages) ||
    !Object.values(packages).every(isString)
  ) {
    problems.push('packages: must be an object of package names and versions');
  }
  if (!Array.isArray(m.environment) || !m.environment.every(isString)) {
    problems.push('environment: must be a list of variable names');
  }
  return problems;
}

/** The manifest of the runtime in `dir`, or why it cannot be read. */
export function readManifest(dir: string): RuntimeManifest | Error {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8'));
    const problems = manifestProblems(parsed);
    return problems.length === 0
      ? (parsed as RuntimeManifest)
      : new Error(`${MANIFEST_FILE}: ${problems.join('; ')}`);
  } catch (error) {
    return error as Error;
  }
}

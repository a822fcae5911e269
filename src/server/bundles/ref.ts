import { AGENT_PATHS } from '../../protocol/index.js';
import { bundleIdOf } from './store.js';

/**
 * The check as an agent receives it: a `bundle:<id>` reference becomes the URL of the run's bundle on this
 * control plane (served only to the run's location, so the URL carries no credential).
 */
export function withBundleUrl(
  check: Record<string, unknown>,
  runId: string,
  publicUrl: string,
): Record<string, unknown> {
  if (bundleIdOf(check.codeBundlePath) === null) return check;
  return { ...check, codeBundlePath: `${publicUrl}${AGENT_PATHS.bundle(runId)}` };
}

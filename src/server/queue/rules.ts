/** A queued run that no agent took within this time after it was scheduled expires with a visible reason. */
export const RUN_EXPIRY_MS = 6 * 60_000;

/** A run that lost its lease this many times (its agents vanished while running it) ends TIMED_OUT. */
export const MAX_LEASE_LOSSES = 3;

/** Life of a run row: queued → leased → done | expired | timed_out | cancelled (leased → queued on lease loss). */
export type RunStatus = 'queued' | 'leased' | 'done' | 'expired' | 'timed_out' | 'cancelled';

export function expiryReason(location: string): string {
  return `no agent of location ${location} took the run within 6 minutes`;
}

export function leaseLossReason(losses: number): string {
  return `the run lost its lease ${losses} times: the agents running it stopped answering`;
}

import { PingSession } from './session.js';

export const RAW_SOCKET_REQUIRED =
  'ICMP needs raw sockets: grant the NET_RAW capability (Kubernetes: securityContext.capabilities.add: ["NET_RAW"] with allowPrivilegeEscalation: true for a non-root container, or the chart value icmp.enabled=true; docker run --cap-add NET_RAW)';

/** Why a raw ICMP socket could not be opened, as a user can act on it. */
export function rawSocketFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // raw-socket throws the bare strerror text, without a code.
  if (code === 'EPERM' || code === 'EACCES' || /operation not permitted|permission denied/i.test(message)) {
    return RAW_SOCKET_REQUIRED;
  }
  return `ICMP raw socket could not be opened: ${message}`;
}

/** Whether this process can run ICMP checks: it opens and closes a raw ICMP (IPv4) socket. */
export async function probeIcmpCapability(): Promise<{ available: boolean; reason: string | null }> {
  try {
    PingSession.open('IPv4').close();
    return { available: true, reason: null };
  } catch (error) {
    return { available: false, reason: rawSocketFailure(error) };
  }
}

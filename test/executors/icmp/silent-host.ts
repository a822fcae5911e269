/**
 * A host that never answers pings: a network namespace of the test's own, reached over a veth pair, with
 * echo requests ignored inside it. Addresses come from 198.18.0.0/15 (RFC 2544, for benchmarks); nothing
 * leaves this machine.
 */
import { execFileSync } from 'node:child_process';

export interface SilentHost {
  address: string;
  remove: () => void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Creates the host, or returns why it cannot be created here (no `ip`, no privilege for namespaces). */
export function createSilentHost(): SilentHost | { unavailable: string } {
  const tag = String(process.pid);
  const namespace = `vantage-icmp-${tag}`;
  const [outside, inside] = [`vi${tag}a`, `vi${tag}b`];
  const block = (process.pid % 16384) * 4;
  const prefix = `198.18.${block >> 8}.`;
  const [near, far] = [`${prefix}${(block & 255) + 1}`, `${prefix}${(block & 255) + 2}`];
  const remove = () => {
    try {
      ip('netns', 'delete', namespace); // takes the veth pair with it
    } catch {}
  };
  try {
    ip('netns', 'add', namespace);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside, 'netns', namespace);
    ip('addr', 'add', `${near}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('-n', namespace, 'addr', 'add', `${far}/30`, 'dev', inside);
    ip('-n', namespace, 'link', 'set', inside, 'up');
    // /proc/sys/net belongs to the network namespace of the process that opens it.
    execFileSync('ip', [
      'netns',
      'exec',
      namespace,
      'sh',
      '-c',
      'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all',
    ]);
    return { address: far, remove };
  } catch (error) {
    remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { unavailable: `cannot create a network namespace: ${stderr || (error as Error).message}` };
  }
}

import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PLAYWRIGHT_ENGINES } from '../checks/enums.js';

export type EngineId = (typeof PLAYWRIGHT_ENGINES)[number];

/** An engine a check suite runs with. */
export interface Engine {
  id: EngineId;
  /** The engine's executable: `node`, or `bun`. */
  executable: string;
  kind: 'node' | 'bun';
  /** Where it comes from: the engine package under `runtimes/engines/`, or this process's own Node.js. */
  source: 'package' | 'host';
}

/** Platform package names as the engines' registry packages spell them. */
const NODE_ARCH: Partial<Record<string, string>> = { x64: 'x64', arm64: 'arm64' };
const BUN_ARCH: Partial<Record<string, string>> = { x64: 'x64', arm64: 'aarch64' };

function packagedExecutable(runtimesDir: string, id: EngineId): string | null {
  const modules = join(runtimesDir, 'engines', id, 'node_modules');
  if (id === 'bun1.3') {
    const arch = BUN_ARCH[process.arch];
    return arch ? join(modules, '@oven', `bun-${process.platform}-${arch}`, 'bin', 'bun') : null;
  }
  const arch = NODE_ARCH[process.arch];
  return arch ? join(modules, `node-${process.platform}-${arch}`, 'bin', 'node') : null;
}

/**
 * The engine `id` on this machine: its registry package under `runtimes/engines/<id>` (installed with
 * `npm ci` there), or, for a Node.js engine, this process's own Node.js when its major version matches.
 */
export function findEngine(id: EngineId, runtimesDir: string): Engine | null {
  const kind = id.startsWith('bun') ? 'bun' : 'node';
  const packaged = packagedExecutable(runtimesDir, id);
  if (packaged && existsSync(packaged)) return { id, executable: packaged, kind, source: 'package' };
  if (kind === 'node' && id === `node${process.versions.node.split('.')[0]}`) {
    return { id, executable: process.execPath, kind, source: 'host' };
  }
  return null;
}

/** The engines this machine has, in the order of the check model. */
export function availableEngines(runtimesDir: string): EngineId[] {
  return PLAYWRIGHT_ENGINES.filter((id) => findEngine(id, runtimesDir) !== null);
}

/** The folder of the host's Node.js, where npm and npx live beside it. */
export const HOST_NODE_BIN = dirname(process.execPath);

/**
 * The PATH folders that make `engine` the one a suite's commands run with: its own folder first (for Bun, a
 * folder made in `scratch` where `bun`, `bunx` and `node` all start Bun), then the host's Node.js folder for
 * npm and npx.
 */
export async function enginePath(engine: Engine, scratch: string): Promise<string[]> {
  if (engine.kind === 'node' && basename(engine.executable) === 'node') {
    return [dirname(engine.executable), HOST_NODE_BIN];
  }
  const dir = join(scratch, 'engine-bin');
  await mkdir(dir, { recursive: true });
  const names = engine.kind === 'bun' ? ['bun', 'bunx', 'node'] : ['node'];
  for (const name of names) await symlink(engine.executable, join(dir, name));
  return [dir, HOST_NODE_BIN];
}

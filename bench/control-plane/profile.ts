/**
 * Where a server's CPU went during the window: the bench starts servers with `--inspect=127.0.0.1:0` (with
 * `--cpu-profile`), attaches to each through the inspector protocol, samples from the window's start to its end,
 * and sums self time by function and by area (a package of node_modules, a folder of our dist/, Node's own code).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import WebSocket from 'ws';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One line of the summary: a function or an area, its self time in ms and its share of the busy time. */
export interface Hotspot {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  areas: Hotspot[];
  functions: Hotspot[];
}

/**
 * The inspector's address a process printed on stderr, once it printed it: the last one, since an agent that node
 * started itself starts node again in place (src/cli/start-up-mode.ts) and its first inspector goes with it.
 */
export function inspectorUrl(stderr: string): string | null {
  return [...stderr.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1)?.[1] ?? null;
}

export class WindowProfiler {
  private nextId = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
    });
  }

  static async attach(url: string): Promise<WindowProfiler> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const profiler = new WindowProfiler(ws);
    await profiler.call('Profiler.enable');
    return profiler;
  }

  async start(): Promise<void> {
    await this.call('Profiler.start');
  }

  /** The window's summary; the whole profile is also kept in `saveTo` (a .cpuprofile file) when given. */
  async stop(saveTo?: string): Promise<ProfileSummary> {
    const { profile } = (await this.call('Profiler.stop')) as { profile: Profile };
    this.ws.close();
    if (saveTo) {
      await mkdir(dirname(saveTo), { recursive: true });
      await writeFile(saveTo, JSON.stringify(profile));
    }
    return summarize(profile);
  }

  private call(method: string): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method }));
    });
  }
}

const NOT_BUSY = new Set(['(idle)', '(program)']);

/** The area of a frame: a package, a folder of dist/ or src/, Node's own code, or the VM's pseudo-frames. */
function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName === '(garbage collector)' ? 'GC' : functionName;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = url.slice(modules + 14).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const ours = /\/(?:dist|src)\/(.+)\/[^/]+$/.exec(url);
  if (ours) return `vantage ${ours[1]}`;
  return url.startsWith('node:') ? 'node (its own code)' : url;
}

function summarize(profile: Profile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!frame || NOT_BUSY.has(frame.functionName)) return;
    busy += ms;
    const file = frame.url.split('/').slice(-2).join('/');
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const area = areaOf(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  });
  const top = (map: Map<string, number>, n: number): Hotspot[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms, share: busy > 0 ? ms / busy : 0 }));
  return { busyMs: busy, areas: top(areas, 12), functions: top(functions, 15) };
}

/** The summary as markdown: areas, then functions, by self time. */
export function profileTable(label: string, summary: ProfileSummary): string {
  const lines = [
    `Where ${label}'s CPU went in the window (self time, ${Math.round(summary.busyMs)} ms busy):`,
    '',
    '| area | ms | share |',
    '|---|---|---|',
    ...summary.areas.map((h) => `| ${h.name} | ${Math.round(h.ms)} | ${(h.share * 100).toFixed(1)} % |`),
    '',
    '| function | ms | share |',
    '|---|---|---|',
    ...summary.functions.map(
      (h) => `| \`${h.name}\` | ${Math.round(h.ms)} | ${(h.share * 100).toFixed(1)} % |`,
    ),
  ];
  return lines.join('\n');
}

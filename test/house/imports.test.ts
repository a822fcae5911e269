import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every relative import of every source file, as folder → folder (paths relative to src/). */
function folderImports(): [from: string, to: string][] {
  const edges: [string, string][] = [];
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(file), match[1] as string));
      edges.push([dirname(file), relative('.', dirname(target)) || '.']);
    }
  }
  return edges;
}

const top = (folder: string) => folder.split('/')[0] as string;
const within = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

describe("the import rules of README's Layout", () => {
  const edges = folderImports();

  it('runs one way between the parts: checks and assertions import nothing of ours, the server no executor', () => {
    const allowed: Record<string, string[]> = {
      checks: [],
      assertions: [],
      protocol: ['checks'],
      config: ['observability'],
      runtimes: ['checks', 'config'],
      observability: ['checks', 'protocol'],
      executors: ['checks', 'assertions', 'runtimes'],
      server: ['checks', 'config', 'observability', 'protocol'],
      agent: ['checks', 'config', 'executors', 'observability', 'protocol', 'runtimes', '.'],
    };
    const broken = edges
      .filter(([from, to]) => top(from) !== top(to) && top(from) in allowed)
      .filter(([from, to]) => !allowed[top(from)]?.includes(top(to)))
      .map(([from, to]) => `${from} imports ${to}`);
    expect([...new Set(broken)]).toEqual([]);
  });

  it('has no import loop between sibling folders', () => {
    const next = new Map<string, Set<string>>();
    for (const [from, to] of edges) {
      if (within(from, to)) continue;
      if (!next.has(from)) next.set(from, new Set());
      next.get(from)?.add(to);
    }
    const reaches = (start: string, goal: string) => {
      const seen = new Set<string>();
      const stack = [start];
      while (stack.length > 0) {
        const folder = stack.pop() as string;
        if (folder === goal) return true;
        if (seen.has(folder)) continue;
        seen.add(folder);
        stack.push(...(next.get(folder) ?? []));
      }
      return false;
    };
    const loops = [...next].flatMap(([from, tos]) =>
      [...tos].filter((to) => reaches(to, from)).map((to) => `${from} ⇄ ${to}`),
    );
    expect(loops).toEqual([]);
  });
});

/** Every file a benchmark loads through relative imports, from bench/*.ts and bench/<folder>/*.ts. */
function benchClosure(): string[] {
  const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));
  const seen = new Set<string>();
  const stack = readdirSync(BENCH, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(BENCH, f));
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      stack.push(normalize(join(dirname(file), (match[1] as string).replace(/\.js$/, '.ts'))));
    }
  }
  return [...seen];
}

describe('the benchmarks', () => {
  it("load nothing that needs vitest's runner, which `npm run bench` does not start", () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const needRunner = benchClosure()
      .filter((file) => /from 'vitest'/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(needRunner).toEqual([]);
  });
});

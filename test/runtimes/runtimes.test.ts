import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAYWRIGHT_ENGINES } from '../../src/checks/index.js';
import {
  availableEngines,
  findEngine,
  installedRuntimes,
  RUNTIME_VARIABLES,
  readManifest,
  resolveRuntime,
  scriptSettingsFromEnv,
} from '../../src/runtimes/index.js';

const { runtimesDir } = scriptSettingsFromEnv({});
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const runtimeIds = readdirSync(runtimesDir).filter((name) => /^\d{4}\.\d{2}$/.test(name));

describe('the runtimes of this project', () => {
  it('are 2026.04 and 2025.04', () => {
    expect(runtimeIds.sort()).toEqual(['2025.04', '2026.04']);
  });

  for (const id of runtimeIds) {
    it(`${id}: pins every package, and its manifest lists exactly what the lockfile holds`, () => {
      const dir = join(runtimesDir, id);
      const pkg = json(join(dir, 'package.json'));
      const lock = json(join(dir, 'package-lock.json'));
      const manifest = readManifest(dir);
      if (manifest instanceof Error) throw manifest;
      expect(manifest.runtimeId).toBe(id);
      expect(Object.keys(manifest.packages).sort()).toEqual(Object.keys(pkg.dependencies).sort());
      expect(manifest.packages).toHaveProperty('@playwright/test');
      expect(manifest.packages).toHaveProperty('@vantage/playwright-helpers');
      for (const [name, version] of Object.entries(manifest.packages)) {
        expect(lock.packages[`node_modules/${name}`].version, name).toBe(version);
        if (!String(pkg.dependencies[name]).startsWith('file:')) expect(pkg.dependencies[name]).toBe(version);
      }
      expect(manifest.playwright).toBe(manifest.packages['@playwright/test']);
      expect(manifest.environment).toEqual([...RUNTIME_VARIABLES]);
    });
  }
});

describe('choosing a runtime', () => {
  it('takes the one a check names, and the default when it names none', () => {
    const installed = installedRuntimes(runtimesDir).map((r) => r.id);
    expect(installed).toEqual(['2026.04', '2025.04']);
    const named = resolveRuntime('2025.04', runtimesDir);
    const fallback = resolveRuntime(null, runtimesDir);
    expect(named instanceof Error ? named.message : named.id).toBe('2025.04');
    expect(fallback instanceof Error ? fallback.message : fallback.id).toBe('2026.04');
  });

  it('refuses one this machine lacks, naming those it has', async () => {
    expect(resolveRuntime('2024.09', runtimesDir)).toEqual(
      new Error('runtime 2024.09 is not available here (available: 2026.04, 2025.04)'),
    );
    const empty = await mkdtemp(join(tmpdir(), 'vantage-runtimes-'));
    expect(resolveRuntime('2026.04', empty)).toEqual(
      new Error('runtime 2026.04 is not available here (available: none is installed)'),
    );
    await rm(empty, { recursive: true });
  });
});

describe('engines for check suites', () => {
  it('are pinned packages that ship their binaries', () => {
    for (const id of PLAYWRIGHT_ENGINES) {
      const pkg = json(join(runtimesDir, 'engines', id, 'package.json'));
      const lock = json(join(runtimesDir, 'engines', id, 'package-lock.json'));
      for (const [name, version] of Object.entries(pkg.optionalDependencies as Record<string, string>)) {
        expect(version).toMatch(/^\d+\.\d+\.\d+$/);
        expect(lock.packages[`node_modules/${name}`].version).toBe(version);
      }
    }
  });

  it('are all there once provisioned, each from its package, and each runs', () => {
    expect(availableEngines(runtimesDir)).toEqual([...PLAYWRIGHT_ENGINES]);
    for (const id of PLAYWRIGHT_ENGINES) {
      const engine = findEngine(id, runtimesDir);
      expect(engine?.source, id).toBe('package');
      const version = execFileSync(engine?.executable ?? '', ['--version'], { encoding: 'utf8' }).trim();
      const major = id.replace(/^(node|bun)/, '').split('.')[0] as string;
      expect(version, id).toMatch(new RegExp(`^v?${major}\\.`));
    }
  });
});

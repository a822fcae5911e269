#!/usr/bin/env node
// Builds the web app (web/) into dist/web: esbuild bundles and splits it by page, hashes the file names, and
// writes each file also compressed (.br, .gz) so the server sends the smallest the browser takes. Prints the
// compressed size of the shell and of every page together (a first load is at most that; the budget is 200 KB).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });

const result = await build({
  entryPoints: [join(root, 'web', 'src', 'main.tsx')],
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = result.metafile.outputs;
const entry = Object.entries(outputs).find(([, o]) => o.entryPoint?.endsWith('main.tsx'));
if (!entry) throw new Error('no entry output');
const [entryJs, entryMeta] = entry;
const url = (file) => `/${relative(out, join(root, file)).split('\\').join('/')}`;
const css = entryMeta.cssBundle ? [entryMeta.cssBundle] : [];
// What the first page loads: the entry, its static imports, its CSS.
const firstLoad = new Set([
  entryJs,
  ...css,
  ...entryMeta.imports.filter((i) => !i.external && i.kind === 'import-statement').map((i) => i.path),
]);

const template = await readFile(join(root, 'web', 'index.html'), 'utf8');
const html = template
  .replace('<!--styles-->', css.map((file) => `<link rel="stylesheet" href="${url(file)}">`).join('\n'))
  .replace(
    '<!--scripts-->',
    [...firstLoad]
      .filter((file) => file.endsWith('.js'))
      .map((file) =>
        file === entryJs
          ? `<script type="module" src="${url(file)}"></script>`
          : `<link rel="modulepreload" href="${url(file)}">`,
      )
      .join('\n'),
  );
await writeFile(join(out, 'index.html'), html);

let firstLoadBrotli = 0;
let allBrotli = 0;
for (const file of [...Object.keys(outputs).map((f) => join(root, f)), join(out, 'index.html')]) {
  const body = await readFile(file);
  const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  await writeFile(`${file}.br`, br);
  await writeFile(`${file}.gz`, gzipSync(body, { level: 9 }));
  if (firstLoad.has(relative(root, file))) firstLoadBrotli += br.length;
  if (/\.(js|css)$/.test(file)) allBrotli += br.length;
}
const chunks = Object.keys(outputs).filter((f) => f.endsWith('.js')).length;
console.log(
  `web app built in dist/web: ${chunks} script files; the shell ${(firstLoadBrotli / 1024).toFixed(1)} KB of JavaScript and CSS (brotli: ${[...firstLoad].map((f) => basename(f)).join(', ')}), every page together ${(allBrotli / 1024).toFixed(1)} KB`,
);

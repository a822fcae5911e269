// Fails when the chart's README.md does not name every value of its values.yaml (as `a.b.c`).
//   node scripts/chart/readme-lists-values.mjs CHART_DIR
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const chart = process.argv[2] ?? 'helm/vantage-agent';
const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8'));
const readme = readFileSync(join(chart, 'README.md'), 'utf8');

/** Paths of the values: a map with keys is walked into, anything else (lists, {}, scalars) is one value. */
const paths = (node, prefix) =>
  node !== null && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0
    ? Object.entries(node).flatMap(([key, child]) => paths(child, prefix ? `${prefix}.${key}` : key))
    : [prefix];

const missing = paths(values, '').filter((path) => !readme.includes(`\`${path}\``));
if (missing.length > 0) {
  console.error(`${chart}/README.md does not list: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`${chart}/README.md lists all ${paths(values, '').length} values`);

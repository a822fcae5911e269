// Runs a Node.js snippet of a check (an API check's setup or teardown script) inside the run's sandbox:
// node node-script.js <input.json> <script.js> <output.json>
// Each key of the input becomes a global the snippet may read and change (`request`, `response`); their
// values after it ran are written to the output. The snippet may use await and require the runtime's packages.

const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

const [inputFile, scriptFile, outputFile] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(inputFile, 'utf8'));
for (const [name, value] of Object.entries(input)) globalThis[name] = value;

const AsyncFunction = (async () => {}).constructor;
const snippet = new AsyncFunction('require', '__filename', '__dirname', fs.readFileSync(scriptFile, 'utf8'));

snippet(createRequire(path.resolve(scriptFile)), scriptFile, path.dirname(scriptFile)).then(
  () => {
    const output = {};
    for (const name of Object.keys(input)) output[name] = globalThis[name];
    fs.writeFileSync(outputFile, JSON.stringify(output));
  },
  (error) => {
    console.error(error?.stack || String(error));
    process.exitCode = 1;
  },
);

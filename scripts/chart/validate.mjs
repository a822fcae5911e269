// Validates manifests rendered by `helm template` from helm/vantage-agent (scripts/ci-chart.sh runs it):
//  1. every object against the Kubernetes JSON schemas (kubernetes-models, KEDA and Prometheus Operator models);
//  2. strictly: no field the API does not know (a typo such as `readinesProbe` passes JSON schemas, which allow
//     unknown fields, but the API server rejects it): the objects are type-checked by tsc against the models'
//     TypeScript interfaces, whose excess-property check rejects unknown fields at any depth;
//  3. as a platform engineer reads the Deployment: probes, security context, secret, grace period, resources,
//     writable volumes, the NET_RAW rule, and that the agent accepts the environment the chart gives it.
//
//   node scripts/chart/validate.mjs CHART_DIR RENDERED.yaml [VALUES.yaml]
// VALUES.yaml: the values file the manifests were rendered with (over the chart's values.yaml), if any.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

const [chartDir, renderedPath, valuesPath] = process.argv.slice(2);
if (!chartDir || !renderedPath) {
  console.error('usage: validate.mjs CHART_DIR RENDERED.yaml [VALUES.yaml]');
  process.exit(2);
}
const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Helm's merge of a values file over the chart's: maps merge, anything else replaces. */
const merge = (base, over) =>
  isMap(base) && isMap(over)
    ? Object.fromEntries(
        [...new Set([...Object.keys(base), ...Object.keys(over)])].map((k) => [
          k,
          k in over ? merge(base[k], over[k]) : base[k],
        ]),
      )
    : over;
const values = merge(
  parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')),
  valuesPath ? parse(readFileSync(valuesPath, 'utf8')) : {},
);
const objects = parseAllDocuments(readFileSync(renderedPath, 'utf8'))
  .map((doc) => doc.toJS())
  .filter((o) => o !== null);

const problems = [];
const check = (ok, message) => {
  if (!ok) problems.push(message);
};

// ---- 1. JSON schemas ---------------------------------------------------------------------------------------------
/** The model module of an apiVersion and kind: core `v1` → kubernetes-models/v1/Kind, `group/v` → …/group/v/Kind. */
function modelModule(apiVersion, kind) {
  if (apiVersion.startsWith('keda.sh/')) return `@kubernetes-models/keda/${apiVersion}/${kind}`;
  if (apiVersion.startsWith('monitoring.coreos.com/')) {
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  }
  return `kubernetes-models/${apiVersion}/${kind}`;
}

const typed = [];
for (const object of objects) {
  const { apiVersion, kind } = object;
  const name = `${kind} ${object.metadata?.name}`;
  const module = modelModule(apiVersion, kind);
  let Model;
  try {
    Model = (await import(module))[kind];
  } catch {
    problems.push(`${name}: no schema for ${apiVersion} ${kind}`);
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push(`${name}: ${error.message}`);
  }
  typed.push({ module, kind, object });
}

// ---- 2. no unknown fields ------------------------------------------------------------------------------------------
const modelsEntry = fileURLToPath(import.meta.resolve('kubernetes-models/v1/Pod'));
const nodeModules = modelsEntry.slice(0, modelsEntry.lastIndexOf('/node_modules/') + '/node_modules'.length);
const tsc = fileURLToPath(import.meta.resolve('typescript')).replace(/lib\/typescript\.js$/, 'bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'vantage-chart-types-'));
try {
  // One declaration per object; an error's line number tells which object it is in.
  let line = 1;
  const starts = [];
  const source = typed
    .map(({ module, kind, object }, i) => {
      const text = `import type { I${kind} as T${i} } from '${module}';\nexport const o${i}: T${i} = ${JSON.stringify(object, null, 2)};\n`;
      starts.push({ line, name: `${kind} ${object.metadata?.name}` });
      line += text.split('\n').length - 1;
      return text;
    })
    .join('');
  const objectAt = (n) => starts.filter((s) => s.line <= n).at(-1)?.name;
  writeFileSync(join(work, 'manifests.ts'), source);
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        module: 'esnext',
        moduleResolution: 'bundler',
        target: 'es2022',
        types: [],
        baseUrl: '.',
        paths: { '*': [`${nodeModules}/*`] },
      },
      files: ['manifests.ts'],
    }),
  );
  try {
    execFileSync(process.execPath, [tsc, '-p', work], { encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const lines = `${error.stdout}`.split('\n').filter((l) => l.includes('error TS'));
    for (const l of lines) {
      const at = Number(/manifests\.ts\((\d+),/.exec(l)?.[1]);
      problems.push(`${objectAt(at)}: ${l.replace(/^.*error TS\d+: /, '')}`);
    }
    if (lines.length === 0) problems.push(`tsc failed: ${error.stdout}${error.stderr}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// ---- 3. the Deployment, read as a platform engineer reads it ------------------------------------------------------
const byKind = (kind) => objects.filter((o) => o.kind === kind);
const [deployment] = byKind('Deployment');
check(byKind('Deployment').length === 1, 'exactly one Deployment');
if (deployment) {
  const pod = deployment.spec.template.spec;
  const podLabels = deployment.spec.template.metadata.labels;
  const container = pod.containers.find((c) => c.name === 'agent');
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e]));
  const envValue = (name) => env[name]?.value;
  const a = values.agent;

  // Every setting of the agent, from its value.
  const expected = {
    API_URL: a.apiUrl,
    JOB_CONCURRENCY: String(a.jobConcurrency),
    BROWSER_CONCURRENCY: String(a.browserConcurrency),
    AGENT_HEALTH_PORT: String(a.healthPort),
    LOG_LEVEL: a.logLevel,
    EXTERNAL_OBSERVABILITY: a.externalObservability ? 'on' : 'off',
    AGENT_DATA_DIR: a.dataDir,
    AGENT_SPOOL_MAX_MB: String(a.spoolMaxMb),
    SHUTDOWN_GRACE_SECONDS: String(a.shutdownGraceSeconds),
    ...(a.proxy.httpsProxy ? { HTTPS_PROXY: a.proxy.httpsProxy } : {}),
    ...(a.proxy.httpProxy ? { HTTP_PROXY: a.proxy.httpProxy } : {}),
    ...(a.proxy.noProxy ? { NO_PROXY: a.proxy.noProxy } : {}),
  };
  const scriptEnv = {
    CHROMIUM_PATH: 'chromiumPath',
    FFMPEG_PATH: 'ffmpegPath',
    VANTAGE_SCRIPT_MEMORY_MB: 'memoryLimitMb',
    VANTAGE_RUNTIMES_DIR: 'runtimesDir',
    VANTAGE_WORK_DIR: 'workDir',
    VANTAGE_CACHE_DIR: 'cacheDir',
  };
  for (const [name, key] of Object.entries(scriptEnv)) {
    if (`${values.scripts[key]}` !== '') expected[name] = `${values.scripts[key]}`;
    else check(env[name] === undefined, `${name} is left to the image's default`);
  }
  for (const [name, value] of Object.entries(expected)) {
    check(
      envValue(name) === value,
      `env ${name} is ${JSON.stringify(envValue(name))}, not ${JSON.stringify(value)}`,
    );
  }

  // The API key comes from a Secret, never inline.
  const keyRef = env.API_KEY?.valueFrom?.secretKeyRef;
  check(keyRef && env.API_KEY.value === undefined, 'API_KEY comes from a secretKeyRef');
  let apiKey = null;
  if (values.apiKey.existingSecret) {
    check(keyRef?.name === values.apiKey.existingSecret, 'API_KEY from apiKey.existingSecret');
    check(keyRef?.key === values.apiKey.existingSecretKey, 'API_KEY from apiKey.existingSecretKey');
    check(byKind('Secret').length === 0, 'no Secret created when apiKey.existingSecret is set');
  } else {
    const secret = byKind('Secret').find((s) => s.metadata.name === keyRef?.name);
    check(secret?.data?.[keyRef?.key] !== undefined, 'API_KEY names a Secret and key the chart renders');
    apiKey = secret ? Buffer.from(secret.data[keyRef.key], 'base64').toString() : null;
    check(apiKey === values.apiKey.value, 'the Secret holds apiKey.value');
  }

  // Probes on the named port that AGENT_HEALTH_PORT opens.
  const port = container.ports?.find((p) => p.name === 'health');
  check(port?.containerPort === a.healthPort, 'container port "health" is agent.healthPort');
  for (const [probe, path] of [
    ['readinessProbe', '/-/readiness'],
    ['livenessProbe', '/-/liveness'],
    ['startupProbe', '/-/liveness'],
  ]) {
    check(container[probe]?.httpGet?.path === path, `${probe} GETs ${path}`);
    check(container[probe]?.httpGet?.port === 'health', `${probe} uses the port named "health"`);
  }

  // Non-root, read-only root file system, no capability but SETGID and SETUID for scripts' own users and NET_RAW
  // when ICMP is enabled; privilege escalation only with one of them.
  const sc = container.securityContext ?? {};
  const podSc = pod.securityContext ?? {};
  check(podSc.runAsNonRoot === true && sc.runAsNonRoot === true, 'runAsNonRoot on the pod and the container');
  check((sc.runAsUser ?? podSc.runAsUser) > 0, 'runs as a non-zero uid');
  check(podSc.seccompProfile?.type === 'RuntimeDefault', 'seccomp RuntimeDefault');
  check(sc.readOnlyRootFilesystem === true, 'readOnlyRootFilesystem');
  check(sc.privileged !== true, 'not privileged');
  check(JSON.stringify(sc.capabilities?.drop) === '["ALL"]', 'capabilities: drop ALL');
  const added = JSON.stringify(sc.capabilities?.add ?? []);
  const wanted = [
    ...(values.scripts.ownUsers ? ['SETGID', 'SETUID'] : []),
    ...(values.icmp.enabled ? ['NET_RAW'] : []),
  ];
  check(added === JSON.stringify(wanted), `capabilities added: ${JSON.stringify(wanted)} (got ${added})`);
  check(
    sc.allowPrivilegeEscalation === wanted.length > 0,
    `allowPrivilegeEscalation ${wanted.length > 0} (file capabilities need it; got ${sc.allowPrivilegeEscalation})`,
  );
  check(pod.automountServiceAccountToken === false, 'no service-account token mounted');

  // Writable volumes for what the agent and Chromium write.
  const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
  const mountAt = (path) => container.volumeMounts.find((m) => m.mountPath === path);
  for (const path of [a.dataDir, '/tmp', '/dev/shm']) {
    const mount = mountAt(path);
    check(mount && volumes[mount.name]?.emptyDir && !mount.readOnly, `a writable emptyDir at ${path}`);
  }
  check(volumes[mountAt('/dev/shm')?.name]?.emptyDir?.medium === 'Memory', '/dev/shm is memory-backed');

  // Grace period above the longest run the agent lets finish; rollouts never lose an agent first.
  const grace = Number(envValue('SHUTDOWN_GRACE_SECONDS'));
  check(
    pod.terminationGracePeriodSeconds > grace,
    'terminationGracePeriodSeconds above SHUTDOWN_GRACE_SECONDS',
  );
  check(
    deployment.spec.strategy?.rollingUpdate?.maxUnavailable === 0,
    'rolling update with maxUnavailable 0',
  );

  // Memory sized per concurrent run (docs/agent.md, Sizing), as a guaranteed amount.
  const { requests = {}, limits = {} } = container.resources ?? {};
  check(requests.memory && limits.memory === requests.memory, 'memory request = limit');
  check(requests.cpu, 'a CPU request');
  if (values.sizing.enabled) {
    const s = values.sizing;
    const mib =
      s.baseMemoryMiB +
      a.jobConcurrency * s.memoryPerRunMiB +
      a.browserConcurrency * s.memoryPerBrowserRunMiB;
    check(requests.memory === `${mib}Mi`, `memory ${requests.memory} is the sizing formula's ${mib}Mi`);
  }

  // Objects that select the agents select exactly its pods.
  const selects = (selector) => Object.entries(selector ?? {}).every(([k, v]) => podLabels[k] === v);
  for (const service of byKind('Service'))
    check(selects(service.spec.selector), 'the Service selects the agents');
  for (const pdb of byKind('PodDisruptionBudget')) {
    check(selects(pdb.spec.selector.matchLabels), 'the PodDisruptionBudget selects the agents');
  }
  for (const scaler of [...byKind('ScaledObject'), ...byKind('HorizontalPodAutoscaler')]) {
    check(
      scaler.spec.scaleTargetRef.name === deployment.metadata.name,
      `${scaler.kind} scales the Deployment`,
    );
    check(deployment.spec.replicas === undefined, 'with autoscaling the Deployment leaves replicas to it');
  }
  for (const monitor of byKind('ServiceMonitor')) {
    check(monitor.spec.endpoints[0].port === 'health', 'the ServiceMonitor scrapes the port "health"');
    check(monitor.spec.endpoints[0].path === '/metrics', 'the ServiceMonitor scrapes /metrics');
  }
  if (values.topologySpread.enabled) {
    check(pod.topologySpreadConstraints?.length > 0, 'topology spread constraints');
  }

  // The agent itself accepts the environment the chart gives it (CA file: a path inside the pod).
  if (apiKey !== null && apiKey !== '' && a.apiUrl) {
    const { loadConfig } = await import(
      pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../../dist/agent/config.js')).href
    );
    const agentEnv = Object.fromEntries(Object.entries(env).map(([k, e]) => [k, e.value]));
    agentEnv.API_KEY = apiKey;
    delete agentEnv.NODE_EXTRA_CA_CERTS;
    const loaded = loadConfig(agentEnv);
    check(loaded.ok, `the agent refuses the chart's environment: ${loaded.problems?.join('; ')}`);
  }
}

const kinds = objects.map((o) => o.kind).join(', ');
if (problems.length > 0) {
  console.error(
    `${renderedPath}: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`${renderedPath}: ${objects.length} objects valid (${kinds})`);

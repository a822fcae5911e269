import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startAgent } from '../agent/agent.js';
import { loadConfig, settingsProblems } from '../agent/config.js';
import type { CheckSession } from '../checks/index.js';
import { problemLines } from '../config/env.js';
import { createLogger } from '../observability/logger.js';
import { SecretValues } from '../observability/secret-values.js';
import type { DeliveryEvent } from '../server/alerts/delivery.js';
import { createUserKey } from '../server/auth/bootstrap.js';
import { loadServerConfig } from '../server/config.js';
import type { RunningServer } from '../server/server.js';
import { version } from '../version.js';
import { type DemoTarget, startDemoTarget } from './demo/target.js';
import { listReporter } from './reporters/list.js';
import { startServerOrSay } from './start-server.js';
import { growHeapForServing, leaveStartUpMode } from './start-up-mode.js';

const LOCATION = 'local';
const EXAMPLES = new URL('../../examples/checks.yaml', import.meta.url);

type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>;

function apiClient(baseUrl: string, accountId: string, apiKey: string): Api {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'x-service-account': accountId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as never;
  };
}

/** The private location of the local agent, with a fresh key (earlier keys revoked: they were shown once). */
async function localLocationKey(api: Api): Promise<string> {
  type Location = { id: string; slugName: string; keys: { id: string; rawKey?: string }[] };
  const existing = (await api<Location[]>('GET', '/v1/private-locations')).find(
    (l) => l.slugName === LOCATION,
  );
  if (!existing) {
    const created = await api<Location>('POST', '/v1/private-locations', {
      name: 'This machine',
      slugName: LOCATION,
    });
    const key = created.keys[0]?.rawKey;
    if (!key) throw new Error('the new private location came without its key');
    return key;
  }
  for (const key of existing.keys) await api('DELETE', `/v1/private-locations/${existing.id}/keys/${key.id}`);
  const key = await api<{ rawKey: string }>('POST', `/v1/private-locations/${existing.id}/keys`);
  return key.rawKey;
}

/** The example checks, scheduled every minute on the local location, made once. */
async function seedChecks(api: Api, targetUrl: string): Promise<number> {
  await api('DELETE', '/v1/variables/TARGET').catch(() => {});
  await api('POST', '/v1/variables', { key: 'TARGET', value: targetUrl });
  const existing = await api<unknown[]>('GET', '/v1/checks?limit=1');
  if (existing.length > 0) return 0;
  const { checks } = parseYaml(await readFile(EXAMPLES, 'utf8')) as { checks: Record<string, unknown>[] };
  for (const check of checks) {
    await api('POST', '/v1/checks', { ...check, frequency: 1, locations: [], privateLocations: [LOCATION] });
  }
  return checks.length;
}

const RECEIVER_NAME = 'vantage dev receiver';
const FLAKY_CHECK = 'Checkout (fails now and then)';

/**
 * A webhook channel to the demo shop's alert receiver (its port changes every start), and a check that fails one
 * minute in three, subscribed to it: alerting to watch on a machine with no internet.
 */
async function seedAlerting(api: Api, targetUrl: string): Promise<void> {
  type Channel = { id: number; type: string; config: { name?: string } };
  const config = { name: RECEIVER_NAME, url: `${targetUrl}/alerts` };
  const existing = (await api<Channel[]>('GET', '/v1/alert-channels')).find(
    (c) => c.type === 'WEBHOOK' && c.config.name === RECEIVER_NAME,
  );
  const channel = existing
    ? await api<Channel>('PUT', `/v1/alert-channels/${existing.id}`, { config })
    : await api<Channel>('POST', '/v1/alert-channels', { type: 'WEBHOOK', config, sendDegraded: true });
  const checks = await api<{ name: string }[]>('GET', '/v1/checks?limit=100');
  if (checks.some((c) => c.name === FLAKY_CHECK)) return;
  await api('POST', '/v1/checks?autoAssignAlerts=false', {
    checkType: 'API',
    name: FLAKY_CHECK,
    frequency: 1,
    locations: [],
    privateLocations: [LOCATION],
    request: { url: '{{TARGET}}/api/checkout', method: 'GET' },
    alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
  });
}

/** One line per alert delivery: what, about which check, to which channel, and how it went. */
function deliveryLine(event: DeliveryEvent): string {
  const outcome =
    event.outcome === 'SENT' ? 'delivered' : event.outcome === 'RETRY' ? 'will retry' : 'failed';
  return `ALERT  ${event.alertType.padEnd(24)} ${event.title}  → ${event.channelType} (${outcome}${
    event.outcome === 'SENT' ? '' : `: ${event.detail}`
  })\n`;
}

/**
 * The demo shop on the port it had last time, when free: runs scheduled before a restart (with the old address in
 * {{TARGET}}) still reach it.
 */
async function startDemoTargetOnSamePort(dataDir: string): Promise<DemoTarget> {
  const file = join(dataDir, 'demo-port');
  const previous = Number(await readFile(file, 'utf8').catch(() => '0'));
  const target = await startDemoTarget(Number.isInteger(previous) ? previous : 0).catch(() =>
    startDemoTarget(0),
  );
  await writeFile(file, String(target.port), { mode: 0o600 });
  return target;
}

/**
 * The API key `vantage dev` prints: the first start's, kept in its data folder (owner-only) and used again while
 * it works, so restarts do not mint a new valid key each time.
 */
async function devKey(server: RunningServer, dataDir: string): Promise<string> {
  const file = join(dataDir, 'dev-api-key');
  const { accountId } = server.bootstrap;
  const kept = server.bootstrap.apiKey ?? (await readFile(file, 'utf8').catch(() => '')).trim();
  if (
    kept &&
    (await apiClient(
      server.url,
      accountId,
      kept,
    )('GET', '/v1/accounts/me').then(
      () => true,
      () => false,
    ))
  ) {
    await writeFile(file, kept, { mode: 0o600 });
    return kept;
  }
  const created = await createUserKey(server.context.db, accountId, 'vantage dev');
  await writeFile(file, created, { mode: 0o600 });
  return created;
}

/**
 * `vantage dev` (and `npm start`): the control plane on the embedded store, one agent for a private location on
 * this machine, and example checks against a demo shop it serves itself; finished runs and delivered alerts are
 * printed as they come. A bad setting of the server, the agent or its sandbox stops it first (one line each, exit 2).
 */
export async function devCommand(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const loaded = loadServerConfig({ VANTAGE_DATA_DIR: '.vantage/dev', LOG_LEVEL: 'WARN', ...env });
  // The agent's settings (its sandbox's among them) are checked now too: it starts only once the server runs.
  const problems = [...(loaded.ok ? [] : loaded.problems), ...settingsProblems(env)];
  if (!loaded.ok || problems.length > 0) {
    process.stderr.write(problemLines([...new Set(problems)]));
    return 2;
  }
  const serverConfig = loaded.config;
  const secrets = new SecretValues();
  const log = createLogger({ level: serverConfig.logLevel, secrets, base: { service: 'vantage-dev' } });
  const server = await startServerOrSay('vantage dev', { config: serverConfig, version, logger: log });
  if (!server) return 2;
  leaveStartUpMode();
  growHeapForServing();
  const target = await startDemoTargetOnSamePort(serverConfig.dataDir);
  const { accountId } = server.bootstrap;
  const apiKey = await devKey(server, serverConfig.dataDir);
  const api = apiClient(server.url, accountId, apiKey);
  const locationKey = await localLocationKey(api);
  secrets.add([apiKey, locationKey]);
  const seeded = await seedChecks(api, target.url);
  await seedAlerting(api, target.url);

  const agentConfig = loadConfig({
    LOG_LEVEL: 'WARN',
    AGENT_DATA_DIR: join(serverConfig.dataDir, 'agent'),
    ...env,
    API_KEY: locationKey,
    API_URL: server.url,
  });
  if (!agentConfig.ok) throw new Error(agentConfig.problems.join('; '));
  const agent = await startAgent(agentConfig.config);

  const reporter = listReporter({ write: (text) => process.stdout.write(text) });
  server.runs.events.on('session-finished', (sessionId) => {
    api<CheckSession>('GET', `/v1/check-sessions/${sessionId}`)
      .then((session) => reporter.onSession(session))
      .catch(() => {});
  });
  server.runs.alerts.on('delivery', (event) => process.stdout.write(deliveryLine(event)));

  process.stdout.write(
    [
      `Vantage ${version} is running on this machine`,
      `  web app        ${server.url}/   (sign in with the API key below)`,
      `  API            ${server.url}   (OpenAPI: ${server.url}/openapi.json)`,
      `  account        x-service-account: ${accountId}`,
      `  API key        Authorization: Bearer ${apiKey}`,
      `  agent          location "${LOCATION}", health on http://127.0.0.1:${agent.healthPort}/health`,
      `  demo shop      ${target.url}`,
      `  alerts         "${FLAKY_CHECK}" alerts a webhook receiver of the demo shop`,
      seeded > 0
        ? `  seeded ${seeded} example checks, run every minute`
        : '  checks         as you left them',
      '',
      'Finished runs and delivered alerts appear below. Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await agent.stop();
  await server.close();
  await target.close();
  return 0;
}

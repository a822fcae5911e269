import { useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../api.js';
import { TimeChart } from '../components/chart.js';
import { CopyButton } from '../components/copy-button.js';
import { Dialog } from '../components/dialog.js';
import { Layout } from '../components/layout.js';
import { ScrollBox } from '../components/scroll-box.js';
import { StateBadge } from '../components/state-badge.js';
import { ago, dateTime } from '../format.js';
import type { AgentRecord } from '../types.js';

interface LocationKey {
  id: string;
  rawKey?: string;
  maskedKey: string;
  created_at: string;
}

interface PrivateLocation {
  id: string;
  name: string;
  slugName: string;
  keys: LocationKey[];
  checkAssignments: { checkId: string }[];
  agents: {
    count: number;
    connected: boolean;
    versions: string[];
    lastSeen: string | null;
    engines: string[];
  };
}

interface Metrics {
  timestamps: string[];
  queueSize: number[];
  oldestScheduledCheckRun: number[];
}

function Agents({ location }: { location: PrivateLocation }) {
  const { agents } = location;
  return (
    <dl class="figures">
      <div>
        <dt>Agents</dt>
        <dd>
          {agents.count} <StateBadge state={agents.connected ? 'CONNECTED' : 'DISCONNECTED'} />
        </dd>
      </div>
      <div>
        <dt>Versions</dt>
        <dd>{agents.versions.join(', ') || '–'}</dd>
      </div>
      <div>
        <dt>Last contact</dt>
        <dd title={agents.lastSeen ?? ''}>{ago(agents.lastSeen)}</dd>
      </div>
      <div>
        <dt>Checks</dt>
        <dd>{location.checkAssignments.length}</dd>
      </div>
    </dl>
  );
}

/** Each agent of a location, one row each: who it is, its connection, and the runs it holds of those it takes. */
function AgentList({ agents }: { agents: AgentRecord[] }) {
  if (agents.length === 0) return <p class="muted">No agent has connected yet.</p>;
  return (
    <ScrollBox label="Agents">
      <table data-testid="agent-list">
        <caption class="visually-hidden">Agents, connected first</caption>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">State</th>
            <th scope="col">Version</th>
            <th scope="col">Connected since</th>
            <th scope="col">Last seen</th>
            <th scope="col">Runs in flight / capacity</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.agentId} data-agent-id={agent.agentId}>
              <th scope="row">
                {agent.hostname}
                <span class="muted kind">{agent.agentId}</span>
              </th>
              <td>
                <StateBadge state={agent.state} />
              </td>
              <td>
                {agent.agentVersion}
                <span class="muted kind">
                  {agent.platform} · Node.js {agent.nodeVersion}
                </span>
              </td>
              <td title={agent.connectedSince ?? ''}>
                {agent.state === 'DISCONNECTED' ? '–' : dateTime(agent.connectedSince)}
              </td>
              <td title={agent.lastSeen}>{ago(agent.lastSeen)}</td>
              <td>
                {agent.runsInFlight.light} / {agent.capacity.light} light
                <span class="kind">
                  {agent.runsInFlight.browser} / {agent.capacity.browser} browser
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** Every private location: its agents, versions and last contact. */
export function Locations() {
  const [locations, setLocations] = useState<PrivateLocation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .get<PrivateLocation[]>('/v1/private-locations')
      .then(setLocations, (e: Error) => setError(e.message));
  }, []);
  return (
    <Layout>
      <h1>Private locations</h1>
      {error && <p role="alert">{error}</p>}
      {locations?.length === 0 && (
        <p>No private locations yet: make one with `POST /v1/private-locations`.</p>
      )}
      {locations?.map((location) => (
        <section key={location.id} aria-labelledby={`location-${location.id}`} class="card">
          <h2 id={`location-${location.id}`}>
            <a href={`/locations/${location.id}`}>{location.name}</a>{' '}
            <span class="muted">{location.slugName}</span>
          </h2>
          <Agents location={location} />
        </section>
      ))}
    </Layout>
  );
}

/** One private location: its agents, its queue over the last day, and its keys (made, shown once, revoked). */
export function Location() {
  const { params } = useRoute();
  const [location, setLocation] = useState<PrivateLocation | null>(null);
  const [metrics, setMetrics] = useState<Metrics | null>(null);
  const [agents, setAgents] = useState<AgentRecord[] | null>(null);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<LocationKey | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = () => {
    void api.get<AgentRecord[]>(`/v1/private-locations/${params.id}/agents`).then(setAgents, () => {});
    return api
      .get<PrivateLocation>(`/v1/private-locations/${params.id}`)
      .then(setLocation, (e: Error) => setMessage(e.message));
  };
  useEffect(() => {
    void load();
    const to = Math.floor(Date.now() / 1000);
    void api
      .get<Metrics>(`/v1/private-locations/${params.id}/metrics?from=${to - 86_400}&to=${to}`)
      .then(setMetrics, () => {});
  }, [params.id]);

  const chart = useMemo(() => {
    if (!metrics || metrics.timestamps.length === 0) return null;
    const times = metrics.timestamps.map((t) => new Date(t).getTime());
    return {
      times,
      range: [Date.now() - 86_400_000, Date.now()] as [number, number],
      series: [
        { label: 'queued runs', values: metrics.queueSize, color: '--series-1' },
        { label: 'oldest wait (s)', values: metrics.oldestScheduledCheckRun, color: '--series-6' },
      ],
    };
  }, [metrics]);

  if (!location) return <Layout>{message ? <p role="alert">{message}</p> : <p>Loading…</p>}</Layout>;
  return (
    <Layout>
      <p class="crumbs">
        <a href="/locations">Private locations</a> /
      </p>
      <h1>
        {location.name} <span class="muted">{location.slugName}</span>
      </h1>
      <Agents location={location} />

      <section aria-labelledby="agents">
        <h2 id="agents">Agents</h2>
        {agents && <AgentList agents={agents} />}
      </section>

      <section aria-labelledby="queue">
        <h2 id="queue">Queue</h2>
        {chart ? (
          <TimeChart
            times={chart.times}
            series={chart.series}
            range={chart.range}
            unit="runs, seconds"
            caption="Runs waiting and how long the oldest has waited, sampled every minute over the last 24 hours"
          />
        ) : (
          <p class="muted">No samples yet.</p>
        )}
        {metrics && metrics.queueSize.length > 0 && (
          <p>
            Now: {metrics.queueSize.at(-1)} queued, the oldest waiting{' '}
            {metrics.oldestScheduledCheckRun.at(-1)} s.
          </p>
        )}
      </section>

      <section aria-labelledby="keys">
        <h2 id="keys">Keys</h2>
        <p class="muted">
          Agents connect with one of these keys. A location has at most two, so that one can replace the
          other.
        </p>
        {newKey && (
          <div class="notice" role="status">
            <p>
              The new key, shown only now: <code data-testid="new-key">{newKey}</code>
            </p>
            <CopyButton text={newKey} label="Copy the key" />
          </div>
        )}
        <ul class="plain">
          {location.keys.map((key) => (
            <li key={key.id}>
              <code>{key.maskedKey}</code> <span class="muted">made {dateTime(key.created_at)}</span>{' '}
              <button type="button" onClick={() => setRevoking(key)}>
                Revoke {key.maskedKey}
              </button>
            </li>
          ))}
        </ul>
        <button
          type="button"
          disabled={location.keys.length >= 2}
          onClick={async () => {
            try {
              const key = await api.post<LocationKey>(`/v1/private-locations/${location.id}/keys`);
              setNewKey(key.rawKey ?? null);
              setMessage(null);
              void load();
            } catch (e) {
              setMessage((e as Error).message);
            }
          }}
        >
          Create a key
        </button>
        <p role="status" class="message">
          {message ?? ''}
        </p>
        {revoking && (
          <Dialog
            title={`Revoke ${revoking.maskedKey}?`}
            onClose={() => setRevoking(null)}
            initialFocus="button[value=cancel]"
          >
            <p>Agents connected with this key are disconnected, and their runs go back to the queue.</p>
            <div class="actions">
              <button
                type="button"
                class="danger"
                onClick={async () => {
                  try {
                    await api.delete(`/v1/private-locations/${location.id}/keys/${revoking.id}`);
                    setMessage(`Revoked ${revoking.maskedKey}.`);
                    setNewKey(null);
                    void load();
                  } catch (e) {
                    setMessage((e as Error).message);
                  }
                  setRevoking(null);
                }}
              >
                Revoke
              </button>
              <button type="button" value="cancel" onClick={() => setRevoking(null)}>
                Cancel
              </button>
            </div>
          </Dialog>
        )}
      </section>
    </Layout>
  );
}

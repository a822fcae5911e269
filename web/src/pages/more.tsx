import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { Layout } from '../components/layout.js';
import { ScrollBox } from '../components/scroll-box.js';
import { StateBadge } from '../components/state-badge.js';
import { ago, dateTime } from '../format.js';
import type { CheckStatus } from '../types.js';

/** Loads a list once; says so when it fails. */
function useList<T>(path: string): { list: T[] | null; error: string | null } {
  const [list, setList] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.get<T[]>(path).then(setList, (e: Error) => setError(e.message));
  }, [path]);
  return { list, error };
}

interface ErrorGroup {
  id: string;
  checkId: string;
  cleanedErrorMessage: string;
  firstSeen: string;
  lastSeen: string;
}

/** The distinct errors of failed runs, most recently seen first. */
export function ErrorGroups() {
  const { list, error } = useList<ErrorGroup>('/v1/error-groups?limit=100');
  return (
    <Layout>
      <h1>Error groups</h1>
      {error && <p role="alert">{error}</p>}
      {list?.length === 0 && <p>No errors so far.</p>}
      <ScrollBox label="Error groups">
        <table>
          <caption class="visually-hidden">Error groups, most recently seen first</caption>
          <thead>
            <tr>
              <th scope="col">Error</th>
              <th scope="col">Check</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {list?.map((group) => (
              <tr key={group.id}>
                <td>
                  <code>{group.cleanedErrorMessage}</code>
                </td>
                <td>
                  <a href={`/checks/${group.checkId}`}>the check</a>
                </td>
                <td>{dateTime(group.firstSeen)}</td>
                <td title={group.lastSeen}>{ago(group.lastSeen)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </Layout>
  );
}

interface HeartbeatCheck {
  id: string;
  name: string;
  heartbeat: { pingToken: string; period: number; periodUnit: string; grace: number; graceUnit: string };
}

/** Heartbeat checks, with the URL their jobs ping. */
export function Heartbeats() {
  const { list, error } = useList<HeartbeatCheck>('/v1/checks?checkType=HEARTBEAT&limit=100');
  const [statuses, setStatuses] = useState<Map<string, CheckStatus>>(new Map());
  useEffect(() => {
    void api.get<CheckStatus[]>('/v1/check-statuses').then(
      (all) => setStatuses(new Map(all.map((s) => [s.checkId, s]))),
      () => {},
    );
  }, []);
  return (
    <Layout>
      <h1>Heartbeats</h1>
      {error && <p role="alert">{error}</p>}
      {list?.length === 0 && <p>No heartbeat checks yet: see docs/heartbeats.md.</p>}
      <ul class="plain">
        {list?.map((check) => {
          const url = `${location.origin}/heartbeats/${check.heartbeat.pingToken}`;
          const status = statuses.get(check.id);
          return (
            <li key={check.id} class="card">
              <h2>
                <a href={`/checks/${check.id}`}>{check.name}</a>{' '}
                {status && <StateBadge state={status.state} />}
              </h2>
              <p class="muted">
                Every {check.heartbeat.period} {check.heartbeat.periodUnit}, {check.heartbeat.grace}{' '}
                {check.heartbeat.graceUnit} of grace; last ping {ago(status?.lastRunAt ?? null)}.
              </p>
              <p>
                Ping URL: <code>{url}</code>{' '}
                <CopyButton text={url} label={`Copy the ping URL of ${check.name}`} />
              </p>
            </li>
          );
        })}
      </ul>
    </Layout>
  );
}

interface StatusPage {
  id: string;
  name: string;
  url: string;
  customDomain: string | null;
}

/** Status pages, each with a link to its public page. */
export function StatusPages() {
  const { list, error } = useList<StatusPage>('/v1/status-pages');
  return (
    <Layout>
      <h1>Status pages</h1>
      {error && <p role="alert">{error}</p>}
      {list?.length === 0 && <p>No status pages yet: see docs/status-pages.md.</p>}
      <ul class="plain">
        {list?.map((page) => (
          <li key={page.id} class="card">
            <h2>{page.name}</h2>
            <p>
              <a href={`/status/${page.url}`}>The public page /status/{page.url}</a>
              {page.customDomain && <span class="muted"> and https://{page.customDomain}/</span>}
            </p>
          </li>
        ))}
      </ul>
    </Layout>
  );
}

import { Component } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api.js';
import { Layout } from '../components/layout.js';
import { Sparkline } from '../components/sparkline.js';
import { StateBadge } from '../components/state-badge.js';
import { ago, ms, percent, spoken } from '../format.js';
import { useLiveStatuses } from '../live.js';
import type { CheckState, CheckStatus, CheckSummary } from '../types.js';

const LIVE_BATCH_MS = 250;
const STATES: CheckState[] = ['FAILING', 'DEGRADED', 'PASSING', 'MUTED', 'PAUSED', 'NO_DATA'];
const FILTERS = ['state', 'type', 'tag', 'group', 'location'] as const;
type Filter = (typeof FILTERS)[number];

function matches(status: CheckStatus, filters: Partial<Record<Filter | 'q', string>>): boolean {
  if (filters.q && !status.name.toLowerCase().includes(filters.q.toLowerCase())) return false;
  if (filters.state && status.state !== filters.state) return false;
  if (filters.type && status.checkType !== filters.type) return false;
  if (filters.tag && !status.tags.includes(filters.tag)) return false;
  if (filters.group && String(status.groupId ?? '') !== filters.group) return false;
  if (filters.location && !status.locations.includes(filters.location)) return false;
  return true;
}

/** Every check at a glance, live: its state, last run, a day's success ratio and response times. */
export function Checks() {
  const { query, route, path } = useLocation();
  const [statuses, setStatuses] = useState<Map<string, CheckStatus> | null>(null);
  const [summaries, setSummaries] = useState<Map<string, CheckSummary>>(new Map());
  const [error, setError] = useState<string | null>(null);

  const summariesOf = (answer: { checks: CheckSummary[] }) =>
    new Map(answer.checks.map((c) => [c.checkId, c]));
  const loadSummaries = () =>
    api
      .get<{ checks: CheckSummary[] }>('/v1/check-aggregates?window=24h')
      .then((answer) => setSummaries(summariesOf(answer)))
      .catch(() => {});
  // Both together, so that a thousand rows are drawn once, not twice.
  const load = () =>
    Promise.all([
      api.get<CheckStatus[]>('/v1/check-statuses'),
      api.get<{ checks: CheckSummary[] }>('/v1/check-aggregates?window=24h').catch(() => null),
    ]).then(
      ([list, answer]) => {
        setStatuses(new Map(list.map((s) => [s.checkId, s])));
        if (answer) setSummaries(summariesOf(answer));
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    void load();
    const timer = setInterval(() => void loadSummaries(), 60_000);
    return () => clearInterval(timer);
  }, []);
  // Changes arrive one check at a time, maybe hundreds a second: they are applied together, a few times a second.
  const pending = useRef(new Map<string, CheckStatus>());
  useLiveStatuses(
    (status) => {
      if (pending.current.size === 0) setTimeout(applyPending, LIVE_BATCH_MS);
      pending.current.set(status.checkId, status);
    },
    () => void load(),
  );
  const applyPending = () => {
    const changed = pending.current;
    pending.current = new Map();
    setStatuses((current) => (current ? new Map([...current, ...changed]) : current));
  };

  const all = useMemo(() => [...(statuses?.values() ?? [])], [statuses]);
  const options = useMemo(
    () => ({
      type: [...new Set(all.map((s) => s.checkType))].sort(),
      tag: [...new Set(all.flatMap((s) => s.tags))].sort(),
      group: [...new Set(all.flatMap((s) => (s.groupId === null ? [] : [String(s.groupId)])))].sort(),
      location: [...new Set(all.flatMap((s) => s.locations))].sort(),
      state: STATES,
    }),
    [all],
  );
  const shown = all.filter((s) => matches(s, query));
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    const search = next.toString();
    route(`${path}${search ? `?${search}` : ''}`, true);
  };
  const counts = STATES.map((state) => [state, all.filter((s) => s.state === state).length] as const);

  return (
    <Layout>
      <h1>Checks</h1>
      <p class="summary" aria-live="polite">
        {counts
          .filter(([, n]) => n > 0)
          .map(([state, n]) => `${n} ${spoken(state)}`)
          .join(' · ') || 'No checks yet.'}
      </p>
      <form class="filters" aria-label="Filter the checks" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input type="search" value={query.q ?? ''} onInput={(e) => setFilter('q', e.currentTarget.value)} />
        </label>
        {FILTERS.map((name) => (
          <label key={name}>
            {name === 'type' ? 'Kind' : name[0]?.toUpperCase() + name.slice(1)}
            <select value={query[name] ?? ''} onChange={(e) => setFilter(name, e.currentTarget.value)}>
              <option value="">All</option>
              {options[name].map((value) => (
                <option key={value} value={value}>
                  {name === 'state' ? spoken(value) : value}
                </option>
              ))}
            </select>
          </label>
        ))}
      </form>
      {error && <p role="alert">{error}</p>}
      {statuses === null ? (
        <p>Loading…</p>
      ) : (
        <>
          <div class="check-row check-head" aria-hidden="true">
            <span>Check</span>
            <span>State</span>
            <span>Last run</span>
            <span>24 h success</span>
            <span>Response time (24 h)</span>
            <span>Locations</span>
          </div>
          <ul class="check-list" aria-label={`Checks, ${shown.length} shown`}>
            {shown.map((status) => (
              <CheckRow key={status.checkId} status={status} summary={summaries.get(status.checkId)} />
            ))}
          </ul>
        </>
      )}
    </Layout>
  );
}

interface RowProps {
  status: CheckStatus;
  summary: CheckSummary | undefined;
}

/** One check's row of the list; drawn again only when its own status or summary changes, not when another check's does. */
class CheckRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    return next.status !== this.props.status || next.summary !== this.props.summary;
  }

  override render({ status, summary }: RowProps) {
    return (
      <li class="check-row" data-check-id={status.checkId} data-state={status.state}>
        <span class="check-name">
          <a href={`/checks/${status.checkId}`}>{status.name}</a>
          <span class="muted kind">{status.checkType}</span>
        </span>
        <span>
          <StateBadge state={status.state} />
        </span>
        <span>
          <span class="visually-hidden">Last run </span>
          {status.lastCheckSessionId ? (
            <a href={`/sessions/${status.lastCheckSessionId}`} title={status.lastRunAt ?? ''}>
              {ago(status.lastRunAt)}
            </a>
          ) : (
            <span class="muted">never</span>
          )}
        </span>
        <span>
          <span class="visually-hidden">24 hour success </span>
          {percent(summary?.successRatio)}
        </span>
        <span>
          <Sparkline
            values={summary?.responseTimes ?? []}
            label={`Median response time by hour; over the day ${ms(summary?.responseTime?.p50)}`}
          />
        </span>
        <span>
          <span class="visually-hidden">Locations </span>
          {status.locations.join(', ')}
        </span>
      </li>
    );
  }
}

import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api.js';
import { SERIES_COLORS, TimeChart } from '../components/chart.js';
import { Choices } from '../components/choices.js';
import { Code } from '../components/code.js';
import { Layout } from '../components/layout.js';
import { ScrollBox } from '../components/scroll-box.js';
import { StateBadge } from '../components/state-badge.js';
import { dateTime, ms, percent } from '../format.js';
import { useLiveStatuses } from '../live.js';
import type { CheckAggregates, CheckStatus, ListedResult } from '../types.js';

const WINDOWS = ['1h', '24h', '7d', '30d'] as const;
const PERCENTILES = ['p50', 'p95', 'p99'] as const;
type Percentile = (typeof PERCENTILES)[number];

/** One line per location: the percentile of each step, null where that location had no result in it. */
function byLocation(aggregates: CheckAggregates, percentile: Percentile) {
  const times = [...new Set(aggregates.locationSeries.map((s) => new Date(s.periodStart).getTime()))].sort(
    (a, b) => a - b,
  );
  const index = new Map(times.map((t, i) => [t, i]));
  return {
    times,
    series: aggregates.locations.map((l, i) => {
      const values: (number | null)[] = times.map(() => null);
      for (const point of aggregates.locationSeries) {
        if (point.location !== l.location) continue;
        values[index.get(new Date(point.periodStart).getTime()) ?? 0] =
          point.responseTime?.[percentile] ?? null;
      }
      return { label: l.location, values, color: SERIES_COLORS[i % SERIES_COLORS.length] as string };
    }),
  };
}

/** One check: its state, response times over a window, its runs, and what a person does to it. */
export function Check() {
  const { params } = useRoute();
  const { query, path } = useLocation();
  const id = params.id ?? '';
  const window = WINDOWS.includes(query.window as never) ? (query.window as string) : '24h';
  const percentile: Percentile = PERCENTILES.includes(query.percentile as never)
    ? (query.percentile as Percentile)
    : 'p95';
  /** The page's URL with these of its choices changed (kept in the URL, so the view can be shared). */
  const linkTo = (change: { window?: string; percentile?: string }) =>
    `${path}?${new URLSearchParams({ window, percentile, ...change })}`;
  const [status, setStatus] = useState<CheckStatus | null>(null);
  const [definition, setDefinition] = useState<Record<string, unknown> | null>(null);
  const [aggregates, setAggregates] = useState<CheckAggregates | null>(null);
  const [results, setResults] = useState<ListedResult[]>([]);
  const [message, setMessage] = useState<string | null>(null);

  const load = () => {
    void api
      .get<CheckStatus>(`/v1/check-statuses/${id}`)
      .then(setStatus, (e: Error) => setMessage(e.message));
    void api.get<Record<string, unknown>>(`/v1/checks/${id}`).then(setDefinition, () => {});
    void api.get<ListedResult[]>(`/v1/check-results/${id}?limit=25`).then(setResults, () => {});
  };
  useEffect(load, [id]);
  useEffect(() => {
    void api
      .get<CheckAggregates>(`/v1/checks/${id}/aggregates?window=${window}`)
      .then(setAggregates, () => {});
  }, [id, window, status?.lastCheckSessionId]);
  useLiveStatuses((changed) => {
    if (changed.checkId !== id) return;
    setStatus(changed);
    void api.get<ListedResult[]>(`/v1/check-results/${id}?limit=25`).then(setResults, () => {});
  }, load);

  const chart = useMemo(() => {
    if (!aggregates) return null;
    const times = aggregates.series.map((s) => new Date(s.periodStart).getTime());
    const pick = (q: 'p50' | 'p95' | 'p99') => aggregates.series.map((s) => s.responseTime?.[q] ?? null);
    return {
      times,
      range: [new Date(aggregates.from).getTime(), new Date(aggregates.to).getTime()] as [number, number],
      series: [
        { label: 'p50', values: pick('p50'), color: '--series-3' },
        { label: 'p95', values: pick('p95'), color: '--series-6' },
        { label: 'p99', values: pick('p99'), color: '--series-2' },
      ],
      locations: byLocation(aggregates, percentile),
    };
  }, [aggregates, percentile]);

  const act = async (what: string, call: () => Promise<unknown>) => {
    setMessage(null);
    try {
      await call();
      setMessage(what);
      load();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };

  if (!status) return <Layout>{message ? <p role="alert">{message}</p> : <p>Loading…</p>}</Layout>;
  return (
    <Layout>
      <p class="crumbs">
        <a href="/checks">Checks</a> /
      </p>
      <h1>
        {status.name} <StateBadge state={status.state} />
      </h1>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            act('Run started: it appears below when it finishes.', () =>
              api.post('/v2/check-sessions/trigger', { target: { checkId: [id] } }),
            )
          }
        >
          Run now
        </button>
        <button
          type="button"
          onClick={() =>
            act(status.activated ? 'Deactivated.' : 'Activated.', () =>
              api.put(`/v1/checks/${id}`, { activated: !status.activated }),
            )
          }
        >
          {status.activated ? 'Deactivate' : 'Activate'}
        </button>
        <button
          type="button"
          onClick={() =>
            act(status.muted ? 'Alerts unmuted.' : 'Alerts muted.', () =>
              api.put(`/v1/checks/${id}`, { muted: !status.muted }),
            )
          }
        >
          {status.muted ? 'Unmute' : 'Mute'}
        </button>
      </div>
      <p role="status" class="message">
        {message ?? ''}
      </p>

      <section aria-labelledby="response-times">
        <h2 id="response-times">Response time</h2>
        <Choices label="Window" options={WINDOWS} chosen={window} hrefOf={(w) => linkTo({ window: w })} />
        {aggregates && (
          <>
            <dl class="figures">
              <div>
                <dt>Success</dt>
                <dd>{percent(aggregates.total.successRatio)}</dd>
              </div>
              <div>
                <dt>Runs</dt>
                <dd>{aggregates.total.count}</dd>
              </div>
              <div>
                <dt>Failed</dt>
                <dd>{aggregates.total.failures}</dd>
              </div>
              <div>
                <dt>Degraded</dt>
                <dd>{aggregates.total.degraded}</dd>
              </div>
              <div>
                <dt>p50 / p95 / p99</dt>
                <dd>
                  {ms(aggregates.total.responseTime?.p50)} / {ms(aggregates.total.responseTime?.p95)} /{' '}
                  {ms(aggregates.total.responseTime?.p99)}
                </dd>
              </div>
            </dl>
            {chart && chart.times.length > 0 && (
              <TimeChart
                times={chart.times}
                series={chart.series}
                range={chart.range}
                caption={`Response time percentiles over ${window}, all locations`}
              />
            )}
            {chart && chart.locations.times.length > 0 && (
              <>
                <h3 id="by-location">By location</h3>
                <Choices
                  label="Percentile by location"
                  options={PERCENTILES}
                  chosen={percentile}
                  hrefOf={(p) => linkTo({ percentile: p })}
                />
                <TimeChart
                  times={chart.locations.times}
                  series={chart.locations.series}
                  range={chart.range}
                  caption={`Response time ${percentile} over ${window}, one line per location`}
                />
              </>
            )}
            <ScrollBox label="By location">
              <table>
                <caption>By location, over {window}</caption>
                <thead>
                  <tr>
                    <th scope="col">Location</th>
                    <th scope="col">Success</th>
                    <th scope="col">Runs</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Degraded</th>
                    <th scope="col">p50</th>
                    <th scope="col">p95</th>
                    <th scope="col">p99</th>
                  </tr>
                </thead>
                <tbody>
                  {aggregates.locations.map((l) => (
                    <tr key={l.location}>
                      <th scope="row">{l.location}</th>
                      <td>{percent(l.successRatio)}</td>
                      <td>{l.count}</td>
                      <td>{l.failures}</td>
                      <td>{l.degraded}</td>
                      <td>{ms(l.responseTime?.p50)}</td>
                      <td>{ms(l.responseTime?.p95)}</td>
                      <td>{ms(l.responseTime?.p99)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          </>
        )}
      </section>

      <section aria-labelledby="runs">
        <h2 id="runs">Runs</h2>
        <ScrollBox label="Runs">
          <table>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Location</th>
                <th scope="col">Result</th>
                <th scope="col">Response time</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={`/sessions/${r.checkSessionId}`}>{dateTime(r.startedAt)}</a>
                  </td>
                  <td>{r.runLocation}</td>
                  <td>
                    <StateBadge
                      state={r.hasFailures || r.hasErrors ? 'FAILED' : r.isDegraded ? 'DEGRADED' : 'PASSED'}
                    />
                  </td>
                  <td>{ms(r.responseTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </section>

      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        <Code>{JSON.stringify(definition, null, 2)}</Code>
      </section>
    </Layout>
  );
}

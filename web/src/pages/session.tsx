import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { detailOf as recordDetail } from '../../../src/checks/results.js';
import { api } from '../api.js';
import { Code } from '../components/code.js';
import { Layout } from '../components/layout.js';
import { ScrollBox } from '../components/scroll-box.js';
import { StateBadge } from '../components/state-badge.js';
import { Waterfall } from '../components/waterfall.js';
import { dateTime, ms } from '../format.js';
import type { AssertionResult, CheckResult, CheckSession } from '../types.js';

type Json = Record<string, unknown>;

function Assertions({ list }: { list: AssertionResult[] }) {
  if (list.length === 0) return null;
  return (
    <ScrollBox label="Assertions">
      <table>
        <caption>Assertions</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Comparison</th>
            <th scope="col">Target</th>
            <th scope="col">Actual</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {list.map((a, i) => (
            <tr key={i}>
              <td>
                {a.source}
                {a.property ? ` ${a.property}` : ''}
              </td>
              <td>{a.comparison}</td>
              <td>
                <code>{a.target}</code>
              </td>
              <td>
                <code>{typeof a.actual === 'string' ? a.actual : JSON.stringify(a.actual)}</code>
              </td>
              <td>
                {a.error ? <StateBadge state="FAILED" /> : <StateBadge state="PASSED" />}
                {a.error && <span class="muted"> {a.error}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function Headers({ title, headers }: { title: string; headers: Record<string, string> | undefined }) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return null;
  return (
    <details>
      <summary>{title}</summary>
      <dl class="headers">
        {entries.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function HttpDetail({ detail }: { detail: Json }) {
  const request = detail.request as Json | undefined;
  const response = detail.response as Json | null | undefined;
  const tls = response?.tls as Json | null | undefined;
  return (
    <>
      {response?.timingPhases ? <Waterfall phases={response.timingPhases as Record<string, number>} /> : null}
      {request && (
        <section>
          <h4>Request</h4>
          <p>
            <code>
              {String(request.method)} {String(request.url)}
            </code>
          </p>
          <Headers title="Request headers" headers={request.headers as Record<string, string>} />
          {request.data ? <Code>{String(request.data)}</Code> : null}
        </section>
      )}
      {response && (
        <section>
          <h4>
            Response: {String(response.status)} {String(response.statusText ?? '')}
          </h4>
          <Headers title="Response headers" headers={response.headers as Record<string, string>} />
          {response.body ? (
            <details>
              <summary>Body</summary>
              <Code>{String(response.body)}</Code>
            </details>
          ) : null}
        </section>
      )}
      {tls && (
        <section>
          <h4>TLS</h4>
          <dl class="headers">
            {Object.entries(tls).map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>{String(value ?? '–')}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </>
  );
}

interface Asset {
  name: string;
  contentType: string;
  url: string | null;
}

/**
 * An artifact's address on this origin: the control plane names its PUBLIC_URL, which may be another name of the
 * same server (the page's policy loads only from its own origin, and its cookie goes only there).
 */
function here(url: string): string {
  const parsed = new URL(url, location.href);
  return `${parsed.pathname}${parsed.search}`;
}

function ScriptDetail({ detail }: { detail: Json }) {
  const assets = (detail.assets as Asset[] | undefined) ?? [];
  const logs = (detail.logs as { time: string; level: string; msg: string }[] | undefined) ?? [];
  return (
    <>
      {assets.map((asset) =>
        asset.url === null ? null : asset.contentType.startsWith('image/') ? (
          <figure key={asset.name}>
            <img src={here(asset.url)} alt={`Screenshot ${asset.name}`} loading="lazy" />
            <figcaption>{asset.name}</figcaption>
          </figure>
        ) : asset.contentType.startsWith('video/') ? (
          <figure key={asset.name}>
            {/* biome-ignore lint/a11y/useMediaCaption: a recording of a headless browser has no speech to caption */}
            <video src={here(asset.url)} controls preload="none" />
            <figcaption>{asset.name}</figcaption>
          </figure>
        ) : asset.name.endsWith('.zip') ? (
          <p key={asset.name}>
            <a href={`/trace/index.html?trace=${encodeURIComponent(`${location.origin}${here(asset.url)}`)}`}>
              Open the trace {asset.name} in the trace viewer
            </a>
          </p>
        ) : (
          <p key={asset.name}>
            <a href={here(asset.url)}>{asset.name}</a>
          </p>
        ),
      )}
      {logs.length > 0 && (
        <details>
          <summary>Logs ({logs.length})</summary>
          <Code>{logs.map((l) => `${l.time} ${l.level} ${l.msg}`).join('\n')}</Code>
        </details>
      )}
    </>
  );
}

function Result({ result }: { result: CheckResult }) {
  const detail = (recordDetail(result) as Json | undefined) ?? null;
  const status =
    result.hasFailures || result.hasErrors ? 'FAILED' : result.isDegraded ? 'DEGRADED' : 'PASSED';
  const errors = [
    ...(typeof detail?.requestError === 'string' && detail.requestError ? [detail.requestError] : []),
    ...((detail?.errors as string[] | undefined) ?? []),
  ];
  return (
    <article class="result" aria-labelledby={`result-${result.checkResultId}`}>
      <h3 id={`result-${result.checkResultId}`}>
        {result.runLocation} <StateBadge state={status} />{' '}
        <span class="muted">{ms(result.responseTime)}</span>
        {result.resultType === 'ATTEMPT' && <span class="muted"> (attempt {result.attempts}, retried)</span>}
      </h3>
      {errors.map((e) => (
        <p key={e} class="error">
          {e}
        </p>
      ))}
      <Assertions list={(detail?.assertions as AssertionResult[] | undefined) ?? []} />
      {detail && 'request' in detail && <HttpDetail detail={detail} />}
      {detail && 'assets' in detail && <ScriptDetail detail={detail} />}
      {detail && !('request' in detail) && !('assets' in detail) && (
        <details>
          <summary>Response</summary>
          <Code>{JSON.stringify(detail.response ?? detail, null, 2)}</Code>
        </details>
      )}
    </article>
  );
}

/** One check session: its status and every result with what it found. */
export function Session() {
  const { params } = useRoute();
  const [session, setSession] = useState<CheckSession | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stop = false;
    const load = () =>
      api.get<CheckSession>(`/v1/check-sessions/${params.id}`).then(
        (s) => {
          setSession(s);
          if (s.status === 'RUNNING' && !stop) setTimeout(load, 2000);
        },
        (e: Error) => setError(e.message),
      );
    void load();
    return () => {
      stop = true;
    };
  }, [params.id]);
  if (!session) return <Layout>{error ? <p role="alert">{error}</p> : <p>Loading…</p>}</Layout>;
  return (
    <Layout>
      <p class="crumbs">
        <a href="/checks">Checks</a> / <a href={`/checks/${session.checkId}`}>{session.name}</a> /
      </p>
      <h1>
        Run of {session.name} <StateBadge state={session.status} />
      </h1>
      <dl class="figures">
        <div>
          <dt>Started</dt>
          <dd>{dateTime(session.startedAt)}</dd>
        </div>
        <div>
          <dt>Took</dt>
          <dd>{ms(session.timeElapsed)}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{session.runSource}</dd>
        </div>
        <div>
          <dt>Locations</dt>
          <dd>{session.runLocations.join(', ')}</dd>
        </div>
      </dl>
      {session.results.map((r) => (
        <Result key={r.checkResultId} result={r} />
      ))}
    </Layout>
  );
}

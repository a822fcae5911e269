import Handlebars from 'handlebars';
import { spoken as words } from '../words.js';
import type { PublicPage, UptimeDay } from './model.js';
import { type ServiceState, STATE_LABELS } from './states.js';

/**
 * The public status page as one HTML document (docs/status-pages.md): server-rendered, no script, no request to
 * any other host, its CSS inline; light and dark from the reader's system setting; readable from 320 px up. The
 * uptime bars are drawn for the eye and hidden from screen readers, which get each service's summary in words.
 */
/** The page's whole style, inline: its hash is the page's Content-Security-Policy for styles. */
export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--maint:#0969da;--none:#d0d7de}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--maint:#58a6ff;--none:#30363d}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:52rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.2rem;margin:2rem 0 .5rem}h3{font-size:1rem;margin:0}
a{color:var(--maint)}.muted{color:var(--muted)}.banner{border-radius:.4rem;padding:.8rem 1rem;font-weight:600;color:#fff}
.banner.OPERATIONAL{background:var(--ok)}.banner.UNDER_MAINTENANCE{background:var(--maint)}.banner.DEGRADED_PERFORMANCE{background:var(--warn)}.banner.PARTIAL_OUTAGE,.banner.MAJOR_OUTAGE{background:var(--bad)}
@media (prefers-color-scheme:dark){.banner{color:#0d1117}}
.card{border:1px solid var(--line);border-radius:.4rem;margin:1rem 0}.card>h2{margin:0;padding:.6rem 1rem;border-bottom:1px solid var(--line)}
.service{padding:.8rem 1rem;border-top:1px solid var(--line)}.service:first-of-type{border-top:0}
.row{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}.state{font-weight:600}
.state.OPERATIONAL{color:var(--ok)}.state.UNDER_MAINTENANCE{color:var(--maint)}.state.DEGRADED_PERFORMANCE{color:var(--warn)}.state.PARTIAL_OUTAGE,.state.MAJOR_OUTAGE{color:var(--bad)}
.bars{display:flex;gap:1px;list-style:none;margin:.5rem 0 .2rem;padding:0;height:2rem}.bars li{flex:1;border-radius:1px;background:var(--none)}
.bars .ok{background:var(--ok)}.bars .warn{background:var(--warn)}.bars .bad{background:var(--bad)}
.incident{border-left:4px solid var(--bad);padding:.2rem 0 .2rem .8rem;margin:1rem 0}.incident.RESOLVED{border-color:var(--line)}
.incident ol{list-style:none;padding:0;margin:.3rem 0}.incident li{margin:.3rem 0}
.maintenance{border-left:4px solid var(--maint);padding:.2rem 0 .2rem .8rem;margin:1rem 0}.updates{list-style:none;padding:0;margin:.3rem 0}
.subscribe{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}.subscribe label{width:100%;color:var(--fg)}
.subscribe input{flex:1;min-width:12rem;padding:.5rem;font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);border-radius:.3rem}
.subscribe button{padding:.5rem 1rem;font:inherit;color:#fff;background:var(--maint);border:0;border-radius:.3rem;cursor:pointer}
@media (prefers-color-scheme:dark){.subscribe button{color:#0d1117}}
:focus-visible{outline:3px solid var(--maint);outline-offset:2px}
`;

const TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{name}} status</title>
<link rel="alternate" type="application/atom+xml" title="{{name}} incidents" href="{{base}}/feed.atom">
<link rel="alternate" type="application/json" title="{{name}} incidents (JSON)" href="{{base}}/incidents.json">
<style>{{{style}}}</style>
</head>
<body>
<header>
<h1>{{name}}</h1>
<p class="banner {{state}}" role="status">{{stateText}}</p>
</header>
<main>
{{#if openIncidents.length}}
<section aria-labelledby="open">
<h2 id="open">Current incidents</h2>
{{#each openIncidents}}{{> incident}}{{/each}}
</section>
{{/if}}
{{#if current.length}}
<section aria-labelledby="maint">
<h2 id="maint">Maintenance</h2>
{{#each current}}{{> maintenance}}{{/each}}
</section>
{{/if}}
{{#each cards}}
<section class="card" aria-labelledby="card-{{@index}}">
<h2 id="card-{{@index}}">{{name}}</h2>
{{#each services}}
<div class="service">
<div class="row"><h3>{{name}}</h3><span class="state {{state}}">{{stateLabel}}</span></div>
<ol class="bars" aria-hidden="true">{{#each bars}}<li class="{{cls}}" title="{{title}}"></li>{{/each}}</ol>
<p class="row muted"><span>{{summary}}</span><span>90 days ago – today</span></p>
</div>
{{/each}}
</section>
{{/each}}
<section aria-labelledby="past">
<h2 id="past">Past incidents</h2>
{{#each pastIncidents}}{{> incident}}{{else}}<p class="muted">No incidents in the last 90 days.</p>{{/each}}
</section>
{{#if completed.length}}
<section aria-labelledby="done">
<h2 id="done">Completed maintenance</h2>
{{#each completed}}{{> maintenance}}{{/each}}
</section>
{{/if}}
</main>
<footer class="muted">
<form method="post" action="/status/{{url}}/subscriptions" class="subscribe">
<label for="email">Get incident updates by e-mail</label>
<input id="email" name="email" type="email" required autocomplete="email" maxlength="254">
<button type="submit">Subscribe</button>
</form>
<p>Updated <time datetime="{{generatedAt}}">{{generatedText}}</time>. Follow incidents: <a href="{{base}}/feed.atom">Atom feed</a>, <a href="{{base}}/incidents.json">JSON</a>.</p>
</footer>
</body>
</html>
`;

const INCIDENT = `<article class="incident {{status}}" id="incident-{{id}}">
<h3>{{name}} <span class="muted">({{serviceName}}, {{severityText}})</span></h3>
<ol>{{#each updates}}<li><strong>{{statusText}}</strong> – {{description}} <time class="muted" datetime="{{created_at}}">{{when}}</time></li>{{/each}}</ol>
</article>`;

const MAINTENANCE = `<article class="maintenance">
<h3>{{name}} <span class="muted">({{statusText}})</span></h3>
<p><time datetime="{{startsAt}}">{{startsText}}</time> – <time datetime="{{endsAt}}">{{endsText}}</time> · {{servicesText}}</p>
{{#if updates.length}}<ol class="updates">{{#each updates}}<li><strong>{{statusText}}</strong> – {{description}} <time class="muted" datetime="{{created_at}}">{{when}}</time></li>{{/each}}</ol>{{/if}}
</article>`;

/** A page's short answer to a reader's action (subscribed, verified, unsubscribed), in the page's style. */
const NOTICE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · {{name}} status</title>
<style>{{{style}}}</style>
</head>
<body>
<main>
<h1>{{title}}</h1>
<p>{{message}}</p>
<p><a href="{{back}}">Back to {{name}} status</a></p>
</main>
</body>
</html>
`;

const engine = Handlebars.create();
engine.registerPartial('incident', INCIDENT);
engine.registerPartial('maintenance', MAINTENANCE);
const page = engine.compile(TEMPLATE, { strict: false });
const notice = engine.compile(NOTICE, { strict: false });

/** A short page that tells a reader what their action did. */
export function renderNotice(pageName: string, back: string, title: string, message: string): string {
  return notice({ name: pageName, back, title, message, style: PAGE_STYLE });
}

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const BANNERS: Record<ServiceState, string> = {
  OPERATIONAL: 'All systems operational',
  UNDER_MAINTENANCE: 'Maintenance in progress',
  DEGRADED_PERFORMANCE: 'Some systems are degraded',
  PARTIAL_OUTAGE: 'Partial outage',
  MAJOR_OUTAGE: 'Major outage',
};

function bar(day: UptimeDay) {
  const cls =
    day.uptime === null
      ? 'none'
      : day.uptime >= 99.9 && day.incidents === 0
        ? 'ok'
        : day.uptime >= 99
          ? 'warn'
          : 'bad';
  const uptime = day.uptime === null ? 'no data' : `${day.uptime} % up`;
  const incidents = day.incidents === 0 ? '' : `, ${day.incidents} incident${day.incidents === 1 ? '' : 's'}`;
  return { cls, title: `${day.date}: ${uptime}${incidents}` };
}

/** The page at `base` (its own path, e.g. /status/acme, or '' on its custom domain) as HTML. */
export function renderStatusPage(model: PublicPage, base: string): string {
  const incident = (i: PublicPage['openIncidents'][number]) => ({
    ...i,
    severityText: words(i.severity),
    updates: [...i.updates]
      .reverse()
      .map((u) => ({ ...u, statusText: words(u.status), when: when(u.created_at) })),
  });
  const maintenance = (m: PublicPage['maintenances'][number]) => ({
    ...m,
    statusText: words(m.status),
    startsText: when(m.startsAt),
    endsText: when(m.endsAt),
    servicesText: m.services.join(', '),
    updates: [...m.updates]
      .reverse()
      .map((u) => ({ ...u, statusText: words(u.status), when: when(u.created_at) })),
  });
  return page({
    ...model,
    base,
    style: PAGE_STYLE,
    stateText: BANNERS[model.state],
    generatedText: when(model.generatedAt),
    openIncidents: model.openIncidents.map(incident),
    pastIncidents: model.pastIncidents.map(incident),
    current: model.maintenances.filter((m) => m.status !== 'COMPLETED').map(maintenance),
    completed: model.maintenances.filter((m) => m.status === 'COMPLETED').map(maintenance),
    cards: model.cards.map((card) => ({
      name: card.name,
      services: card.services.map((s) => {
        const withIncidents = s.days.filter((d) => d.incidents > 0).length;
        const uptime = s.uptime === null ? 'No runs recorded' : `${s.uptime} % uptime`;
        return {
          ...s,
          stateLabel: STATE_LABELS[s.state],
          bars: s.days.map(bar),
          summary: `${uptime} over 90 days${withIncidents ? `, incidents on ${withIncidents} day${withIncidents === 1 ? '' : 's'}` : ''}`,
        };
      }),
    })),
  });
}

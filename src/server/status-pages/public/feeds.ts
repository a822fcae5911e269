import { create } from 'xmlbuilder2';
import type { PublicPage } from './model.js';

type PageIncident = PublicPage['openIncidents'][number];

const incidentsOf = (model: PublicPage): PageIncident[] =>
  [...model.openIncidents, ...model.pastIncidents].sort((a, b) => b.updated_at.localeCompare(a.updated_at));

/** The page's incidents of the last 90 days as JSON, newest change first: for scripts and other dashboards. */
export function incidentsJson(model: PublicPage) {
  return {
    page: { name: model.name, url: model.url, state: model.state },
    incidents: incidentsOf(model).map((i) => ({
      id: i.id,
      name: i.name,
      service: i.serviceName,
      severity: i.severity,
      status: i.status,
      created_at: i.created_at,
      updated_at: i.updated_at,
      resolved_at: i.resolved_at,
      updates: i.updates.map((u) => ({
        status: u.status,
        description: u.description,
        created_at: u.created_at,
      })),
    })),
  };
}

/** The page's incidents as an Atom feed (RFC 4287), one entry per incident, its updates in its content. */
export function incidentsAtom(model: PublicPage, pageUrl: string): string {
  const incidents = incidentsOf(model);
  const feed = create({ version: '1.0', encoding: 'utf-8' }).ele('feed', {
    xmlns: 'http://www.w3.org/2005/Atom',
  });
  feed.ele('title').txt(`${model.name} incidents`);
  feed.ele('id').txt(pageUrl);
  feed.ele('link', { href: pageUrl });
  feed.ele('link', { rel: 'self', href: `${pageUrl}/feed.atom` });
  feed.ele('updated').txt(incidents[0]?.updated_at ?? model.generatedAt);
  feed.ele('author').ele('name').txt(model.name);
  for (const incident of incidents) {
    const entry = feed.ele('entry');
    entry.ele('title').txt(`${incident.name} (${incident.serviceName}): ${incident.status}`);
    entry.ele('id').txt(`${pageUrl}#incident-${incident.id}`);
    entry.ele('link', { href: `${pageUrl}#incident-${incident.id}` });
    entry.ele('published').txt(incident.created_at);
    entry.ele('updated').txt(incident.updated_at);
    const text = [...incident.updates]
      .reverse()
      .map((u) => `${u.created_at} ${u.status}: ${u.description}`)
      .join('\n');
    entry.ele('content', { type: 'text' }).txt(text);
  }
  return feed.end({ prettyPrint: true });
}

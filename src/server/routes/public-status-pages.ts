import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { customDomains, type PublicPageRef, pageAt } from '../status-pages/pages.js';
import { incidentsAtom, incidentsJson } from '../status-pages/public/feeds.js';
import { type PublicPage, publicPageOf } from '../status-pages/public/model.js';
import { PAGE_STYLE, renderStatusPage } from '../status-pages/public/render.js';

const TAG = 'Public status pages';
/** How long a rendered page (and the list of custom domains) is served before it is read again. */
const CACHE_MS = 30_000;

/** The page's own documents: nothing but its inline style may load, nothing may run, nothing frames it. */
const PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Format = 'html' | 'json' | 'atom';
const SUFFIXES: Record<string, Format> = { '': 'html', '/incidents.json': 'json', '/feed.atom': 'atom' };

/**
 * Public status pages (docs/status-pages.md), without an API key: `/status/{url}` with its JSON and Atom feeds of
 * incidents beside it, and the same at `/` of a page's custom domain (by Host header). Rendered from the store at
 * most once per 30 s per page and replica.
 */
export function registerPublicStatusPageRoutes(
  app: FastifyInstance,
  { db, runs, config }: ServerContext,
): void {
  const cache = new Map<string, { at: number; model: PublicPage }>();
  let domains: { at: number; set: Set<string> } = { at: 0, set: new Set() };

  const modelOf = async (ref: PublicPageRef): Promise<PublicPage> => {
    const now = runs.clock();
    const cached = cache.get(ref.page.id);
    if (cached && now.getTime() - cached.at < CACHE_MS) return cached.model;
    const model = await publicPageOf(db, ref.accountId, ref.page.document, now);
    cache.set(ref.page.id, { at: now.getTime(), model });
    return model;
  };

  /** `base`: the page's path on this server, '' on its custom domain; `pageUrl`: its address for feeds. */
  const serve = async (
    reply: FastifyReply,
    ref: PublicPageRef,
    format: Format,
    base: string,
    pageUrl: string,
  ) => {
    const model = await modelOf(ref);
    reply
      .header('cache-control', `public, max-age=${CACHE_MS / 1000}`)
      .header('x-content-type-options', 'nosniff');
    if (format === 'json') return reply.type('application/json; charset=utf-8').send(incidentsJson(model));
    if (format === 'atom')
      return reply.type('application/atom+xml; charset=utf-8').send(incidentsAtom(model, pageUrl));
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_POLICY)
      .header('referrer-policy', 'no-referrer')
      .send(renderStatusPage(model, base));
  };

  for (const [suffix, format] of Object.entries(SUFFIXES)) {
    defineRoute(app, {
      method: 'GET',
      path: `/status/{url}${suffix}`,
      summary: {
        html: 'The public status page (HTML, no API key)',
        json: 'The public status page’s incidents of the last 90 days (JSON)',
        atom: 'The public status page’s incidents (Atom feed)',
      }[format],
      tag: TAG,
      auth: 'none',
      params: z.object({ url: z.string().min(1).max(63) }),
      responses: { 200: { description: 'Successful' }, 404: { description: 'No such status page' } },
      handler: async ({ params, reply }) => {
        const ref = await pageAt(db, { url: params.url });
        if (!ref) throw notFound('Status page', params.url);
        const base = `/status/${params.url}`;
        return serve(reply, ref, format, base, `${config.publicUrl}${base}`);
      },
    });
  }

  // On a page's custom domain, its page is the site: `/`, `/incidents.json`, `/feed.atom`.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const format = SUFFIXES[request.url === '/' ? '' : request.url];
    if (!format) return;
    const host = String(request.headers.host ?? '')
      .replace(/:\d+$/, '')
      .toLowerCase();
    const now = runs.clock().getTime();
    if (now - domains.at >= CACHE_MS) domains = { at: now, set: await customDomains(db) };
    if (!domains.set.has(host)) return;
    const ref = await pageAt(db, { domain: host });
    if (!ref) return;
    await serve(reply, ref, format, '', `${request.protocol}://${host}`);
    return reply;
  });
}

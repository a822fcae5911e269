import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { customDomains, type PublicPageRef, pageAt } from '../status-pages/pages.js';
import { incidentsAtom, incidentsJson } from '../status-pages/public/feeds.js';
import { type PublicPage, publicPageOf } from '../status-pages/public/model.js';
import { PAGE_STYLE, renderNotice, renderStatusPage } from '../status-pages/public/render.js';
import { subscribe, unsubscribe, verifySubscription } from '../status-pages/subscriptions.js';

const TAG = 'Public status pages';
/** How long a rendered page (and the list of custom domains) is served before it is read again. */
const CACHE_MS = 30_000;

/** The page's own documents: nothing but its inline style may load, nothing may run, nothing frames it. */
const PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'self'",
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

  const noticeReply = (
    reply: FastifyReply,
    ref: PublicPageRef,
    status: number,
    title: string,
    message: string,
  ) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_POLICY)
      .header('cache-control', 'no-store')
      .send(renderNotice(ref.page.document.name, `/status/${ref.page.document.url}`, title, message));

  const pageOrThrow = async (url: string) => {
    const ref = await pageAt(db, { url });
    if (!ref) throw notFound('Status page', url);
    return ref;
  };
  const linkParams = z.object({ url: z.string().min(1).max(63), id: z.string().min(1).max(100) });
  const linkQuery = z.object({ token: z.string().min(1).max(200) });

  // The page's subscribe form posts here (a plain HTML form: no script); the answer never tells whether the address
  // was subscribed already.
  app.register(async (forms) => {
    forms.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    defineRoute(forms, {
      method: 'POST',
      path: '/status/{url}/subscriptions',
      summary: 'Subscribe by e-mail from the public page (an HTML form): a verification mail is sent',
      tag: TAG,
      auth: 'none',
      params: z.object({ url: z.string().min(1).max(63) }),
      responses: { 200: { description: 'An HTML page' }, 400: { description: 'Not an e-mail address' } },
      handler: async ({ params, request, reply }) => {
        const ref = await pageOrThrow(params.url);
        const email = String((request.body as Record<string, unknown> | undefined)?.email ?? '').trim();
        if (!z.email().safeParse(email).success || email.length > 254) {
          return noticeReply(reply, ref, 400, 'Not subscribed', `"${email}" is not an e-mail address.`);
        }
        await db.transaction((tx) => subscribe(tx, ref.accountId, ref.page.id, email, runs.clock()));
        return noticeReply(
          reply,
          ref,
          200,
          'Check your inbox',
          `If ${email} is not subscribed yet, a mail with a link to confirm is on its way.`,
        );
      },
    });
    // The links of subscriber mail: each follows a subscription's link with its token, and answers a short page.
    const links = [
      {
        action: 'verify',
        methods: ['GET'],
        summary: 'Confirm a subscription with the link of its verification mail',
        follow: verifySubscription,
        done: ['Subscribed', 'You will get a mail for each incident update on this page.'],
        failed: 'This link is not valid: subscribe again from the page.',
      },
      {
        action: 'unsubscribe',
        methods: ['GET', 'POST'],
        summary: 'Unsubscribe with the link of a subscriber mail (POST: RFC 8058 one-click)',
        follow: unsubscribe,
        done: ['Unsubscribed', 'You will get no more mail from this status page.'],
        failed: 'This link is not valid, or you were unsubscribed already.',
      },
    ] as const;
    for (const link of links) {
      for (const method of link.methods) {
        defineRoute(forms, {
          method,
          path: `/status/{url}/subscriptions/{id}/${link.action}`,
          summary: link.summary,
          tag: TAG,
          auth: 'none',
          params: linkParams,
          query: linkQuery,
          responses: { 200: { description: 'An HTML page' }, 404: { description: 'No such subscription' } },
          handler: async ({ params, query, reply }) => {
            const ref = await pageOrThrow(params.url);
            return (await link.follow(db, params.id, query.token))
              ? noticeReply(reply, ref, 200, link.done[0], link.done[1])
              : noticeReply(reply, ref, 404, 'Not found', link.failed);
          },
        });
      }
    }
  });

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

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { APP_PAGES } from './pages.js';
import { registerTraceViewer } from './trace-viewer.js';

/** Where `npm run build` (scripts/build-web.mjs) puts the app, from src/ (tests, through tsx) and dist/ alike. */
export const WEB_APP_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/**
 * What the app's pages may load: only this origin's scripts, styles, images and media, no inline code, no frames
 * (charts and the waterfall set styles through the CSSOM, which style-src does not govern).
 */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', APP_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
}

/**
 * Serves the web app at / (docs/web-app.md): its hashed assets under /assets/ (cached for good, sent
 * precompressed), index.html for every page, and Playwright's trace viewer under /trace/. Without a build, the
 * pages say how to make one.
 */
export function registerWebApp(app: FastifyInstance): void {
  registerTraceViewer(app);
  const built = existsSync(`${WEB_APP_DIR}index.html`);
  if (built) {
    void app.register(fastifyStatic, {
      root: `${WEB_APP_DIR}assets`,
      prefix: '/assets/',
      preCompressed: true,
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
    });
  }
  for (const page of APP_PAGES) {
    app.get(page, { config: { auth: 'none' } }, async (_request, reply) => {
      securityHeaders(reply);
      if (!built) {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The web app is not built: run `npm run build`. The API is at /v1 (see /openapi.json).');
      }
      return reply
        .header('cache-control', 'no-cache')
        .sendFile('index.html', WEB_APP_DIR, { maxAge: 0, immutable: false });
    });
  }
}

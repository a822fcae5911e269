import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Playwright's own trace viewer, as its package ships it: static files and a service worker that reads a trace. */
const VIEWER_DIR = join(
  dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')),
  'lib',
  'vite',
  'traceViewer',
);

/** The hashes of the inline scripts of the viewer's pages, so that the policy allows those and nothing else. */
function inlineScriptHashes(): string[] {
  const html = readFileSync(join(VIEWER_DIR, 'index.html'), 'utf8');
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
}

/**
 * The viewer's policy: its own scripts (and its page's one inline script, by hash), its service worker, and the
 * recorded pages it shows in sandboxed frames with their inline styles and images; nothing from another host.
 */
function viewerCsp(): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${inlineScriptHashes().join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "media-src 'self' blob:",
    "worker-src 'self'",
    "connect-src 'self'",
    "frame-src 'self' blob: data: about:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * Serves the trace viewer at /trace/ (docs/web-app.md): `/trace/index.html?trace=<URL of a trace .zip>` opens a
 * trace of a browser, multi-step or Playwright run; its service worker fetches the trace with the person's session.
 */
export function registerTraceViewer(app: FastifyInstance): void {
  const csp = viewerCsp();
  void app.register(fastifyStatic, {
    root: VIEWER_DIR,
    prefix: '/trace/',
    decorateReply: false,
    index: ['index.html'],
    setHeaders: (reply) => {
      reply.header('content-security-policy', csp);
      reply.header('x-content-type-options', 'nosniff');
    },
  });
}

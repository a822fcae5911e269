import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { registerAuth } from '../auth/authenticate.js';
import { credentialOf, type FailedAuthLimit, registerFailedAuthLimit } from '../auth/failed-auth.js';
import { ApiError, DomainError, errorBody } from '../common/errors.js';
import { type Clock, systemClock } from '../queue/clock.js';
import type { Db } from '../store/db.js';
import { apiErrorOf } from './domain-errors.js';
import { registerJsonBodyParser } from './json-body.js';
import { openApiDocument } from './openapi.js';
import { type ResponseCheck, RouteRegistry } from './route.js';

export interface AppOptions {
  db: Db;
  version: string;
  publicUrl: string;
  logger?: FastifyBaseLogger | boolean;
  /** Requests per key (or per token of a keyless route) per window (spec: 600 per 60 s). */
  rateLimit?: { max: number; windowMs: number };
  /** Failed authentications per source per window (default 30 per 60 s). */
  failedAuthLimit?: FailedAuthLimit;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For names the source (TRUST_PROXY). */
  trustProxy?: boolean | string[];
  /** Whether an answer that does not match its documented schema fails (tests) or is logged (default). */
  responseCheck?: ResponseCheck;
  /** The time web-app sessions expire by: the server's clock (tests move it). */
  clock?: Clock;
}

/** Largest JSON body accepted (check scripts and certificates fit easily). */
const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * The HTTP app without routes: error bodies of the spec, authentication, rate limit and the OpenAPI document.
 * Route modules register themselves on it with `defineRoute`.
 */
export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(typeof options.logger === 'object'
      ? { loggerInstance: options.logger }
      : { logger: options.logger ?? false }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: options.trustProxy ?? false,
    // Fastify's request lines carry the raw URL, which holds trigger and heartbeat tokens; ours log the route.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { coerceTypes: false } },
  });
  app.decorate('routeRegistry', new RouteRegistry(options.responseCheck));
  registerJsonBodyParser(app);

  app.setErrorHandler((error, request, reply) => {
    const answer = error instanceof DomainError ? apiErrorOf(error) : error;
    if (answer instanceof ApiError) {
      return reply.code(answer.statusCode).headers(answer.headers).send(answer.toBody());
    }
    const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
    if (statusCode === 429) return reply.code(429).send(error);
    if (statusCode >= 400 && statusCode < 500) {
      // Fastify's own client errors: malformed JSON, wrong content type, body too large.
      return reply.code(statusCode).send(
        errorBody(statusCode, (error as Error).message, {
          code: (error as { code?: string }).code ?? null,
        }),
      );
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody(500, 'Internal server error'));
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      {
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });

  // Parsed first: the limits and authentication read the web app's session cookie.
  await app.register(cookie);
  const limit = options.rateLimit ?? { max: 600, windowMs: 60_000 };
  await app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    // Per key (or session); a keyless route (heartbeat ping, trigger URL) per token, so one busy token starves no
    // other one.
    keyGenerator: (request) => credentialOf(request) ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => ({
      ...errorBody(
        429,
        `Rate limit exceeded: ${context.max} requests per ${Math.round(limit.windowMs / 1000)} s; retry in ${Math.ceil(context.ttl / 1000)} s`,
        {
          retryAfterSeconds: Math.ceil(context.ttl / 1000),
        },
      ),
    }),
  });
  registerFailedAuthLimit(app, options.failedAuthLimit ?? { max: 30, windowMs: 60_000 });
  registerAuth(app, options.db, { clock: options.clock ?? systemClock, publicUrl: options.publicUrl });

  app.get('/openapi.json', { config: { auth: 'none' } }, async () =>
    openApiDocument(app.routeRegistry.routes, { version: options.version, serverUrl: options.publicUrl }),
  );
  return app;
}

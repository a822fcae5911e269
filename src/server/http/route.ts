import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthContext, AuthKind } from '../auth/context.js';
import { parseOrThrow } from './validation.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface ResponseSpec {
  description: string;
  schema?: Schema;
}

/** One API route: its contract (validated, and published in the OpenAPI document) and its handler. */
export interface RouteSpec<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
> {
  method: HttpMethod;
  /** OpenAPI style, e.g. `/v1/checks/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** Who may call it: user API keys, private-location (agent) keys, or anyone. */
  auth: AuthKind | 'none';
  /**
   * The API key alone opens the route: `x-service-account` may be left out (and when sent must still name the
   * key's account). For the routes that tell automation which account its key belongs to.
   */
  accountOptional?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** By status code; the first 2xx is the status of a successful call. */
  responses: Record<number, ResponseSpec>;
  /** Largest body in bytes, where it differs from the app's. */
  bodyLimit?: number;
  /** Applied to the parsed body before validation (e.g. to make text the store cannot keep storable). */
  prepareBody?: (body: unknown) => unknown;
  /** Marks a route that the OpenAPI document lists as deprecated. */
  deprecated?: boolean;
  handler: (call: {
    params: Out<P>;
    query: Out<Q>;
    body: Out<B>;
    auth: AuthContext;
    request: FastifyRequest;
    reply: FastifyReply;
  }) => Promise<unknown>;
}

export type AnyRouteSpec = RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>;

/**
 * What an answer that does not match its documented schema does: `strict` fails the request (tests, so the
 * published document cannot drift from the code), `log` logs it and sends the answer anyway (production).
 */
export type ResponseCheck = 'strict' | 'log';

/** The routes of an app, for the OpenAPI document, and how their answers are held to it. */
export class RouteRegistry {
  readonly routes: AnyRouteSpec[] = [];
  constructor(readonly responseCheck: ResponseCheck = 'log') {}
}

/** Holds an answer to the schema the OpenAPI document publishes for its status. */
function checkAnswer(app: FastifyInstance, spec: AnyRouteSpec, status: number, result: unknown): void {
  const schema = spec.responses[status]?.schema;
  if (!schema) return;
  const parsed = schema.safeParse(result);
  if (parsed.success) return;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  const message = `the ${status} answer of ${spec.method} ${spec.path} does not match its documented schema: ${problems}`;
  if (app.routeRegistry.responseCheck === 'strict') throw new Error(message);
  app.log.error(message);
}

function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Registers a route on the app with validation of params, query and body, and records it for OpenAPI. */
export function defineRoute<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
>(app: FastifyInstance, spec: RouteSpec<P, Q, B>): void {
  app.routeRegistry.routes.push(spec as unknown as AnyRouteSpec);
  const successStatus = Number(Object.keys(spec.responses).find((code) => code.startsWith('2')) ?? 200);
  app.route({
    method: spec.method,
    url: fastifyPath(spec.path),
    ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
    // Agent routes carry the protocol traffic of a whole location (its agents share one key), not API use: the
    // per-key API rate limit would cap every location at 600 results a minute.
    config: {
      auth: spec.auth,
      ...(spec.accountOptional ? { accountOptional: true } : {}),
      ...(spec.auth === 'location' ? { rateLimit: false as const } : {}),
    },
    handler: async (request, reply) => {
      const params = spec.params ? parseOrThrow(spec.params, request.params, 'params') : undefined;
      const query = spec.query ? parseOrThrow(spec.query, request.query, 'query') : undefined;
      const raw = spec.prepareBody ? spec.prepareBody(request.body ?? {}) : (request.body ?? {});
      const body = spec.body ? parseOrThrow(spec.body, raw, 'body') : undefined;
      const result = await spec.handler({
        params: params as Out<P>,
        query: query as Out<Q>,
        body: body as Out<B>,
        auth: request.auth as AuthContext,
        request,
        reply,
      });
      if (reply.sent) return reply;
      if (reply.statusCode === 200) reply.code(successStatus);
      if (reply.statusCode !== 204)
        checkAnswer(app, spec as unknown as AnyRouteSpec, reply.statusCode, result);
      return reply.statusCode === 204 ? reply.send() : reply.send(result);
    },
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    routeRegistry: RouteRegistry;
  }
  interface FastifyContextConfig {
    auth?: AuthKind | 'none';
    /** `x-service-account` may be left out: the key names its account (RouteSpec.accountOptional). */
    accountOptional?: boolean;
    /** A keyless route that takes an API key as `apiKey` in its JSON body (sign-in): failed-auth counts its wrong keys. */
    signIn?: boolean;
  }
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

import { z } from 'zod';
import type { AnyRouteSpec } from './route.js';

const errorBodySchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  attributes: z.record(z.string(), z.unknown()),
});

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return rest as JsonSchema;
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

function operationOf(route: AnyRouteSpec): JsonSchema {
  const responses: JsonSchema = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { 'application/json': { schema: jsonSchema(response.schema, 'output') } } }
        : {}),
    };
  }
  const errors: Record<string, string> = {
    400: 'Invalid request',
    401: 'Missing or invalid credentials',
    429: 'Rate limit exceeded',
  };
  if (route.auth === 'user') errors[403] = 'The key may not act for this account';
  for (const [status, description] of Object.entries(errors)) {
    responses[status] ??= {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(route.auth === 'none' ? { security: [] } : {}),
    // Either the key with the account header, or the key alone.
    ...(route.accountOptional
      ? { security: [{ bearerAuth: [], accountHeader: [] }, { bearerAuth: [] }] }
      : {}),
    parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every registered route, built from the same zod schemas that validate requests. */
export function openApiDocument(
  routes: readonly AnyRouteSpec[],
  info: { version: string; serverUrl: string },
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Vantage monitoring API', version: info.version },
    servers: [{ url: info.serverUrl }],
    security: [{ bearerAuth: [], accountHeader: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
        accountHeader: { type: 'apiKey', in: 'header', name: 'x-service-account' },
      },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
}

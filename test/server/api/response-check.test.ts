import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../../src/server/http/app.js';
import { defineRoute, type ResponseCheck } from '../../../src/server/http/route.js';
import type { Db } from '../../../src/server/store/db.js';
import { capturingLogger } from '../../support/agent.js';

/** Answers are held to the schemas the OpenAPI document publishes: failing in tests, logged in production. */
describe('answers against their documented schema', () => {
  async function appAnswering(answer: unknown, responseCheck: ResponseCheck) {
    const { logger, logs } = capturingLogger('ERROR');
    const app = await createApp({
      db: {} as Db,
      version: '0',
      publicUrl: 'http://127.0.0.1',
      logger: logger as never,
      responseCheck,
    });
    defineRoute(app, {
      method: 'GET',
      path: '/v1/thing',
      summary: 'A thing',
      tag: 'Test',
      auth: 'none',
      responses: { 200: { description: 'OK', schema: z.object({ id: z.number(), name: z.string() }) } },
      handler: async () => answer,
    });
    return { app, logs };
  }

  it('lets a matching answer through', async () => {
    const { app } = await appAnswering({ id: 1, name: 'a' }, 'strict');
    expect((await app.inject({ url: '/v1/thing' })).json()).toEqual({ id: 1, name: 'a' });
  });

  it('fails a drifted answer in strict mode, naming the field', async () => {
    const { app, logs } = await appAnswering({ id: '1', name: 'a' }, 'strict');
    const reply = await app.inject({ url: '/v1/thing' });
    expect(reply.statusCode).toBe(500);
    expect(logs.text).toContain('the 200 answer of GET /v1/thing does not match its documented schema: id:');
  });

  it('sends a drifted answer in log mode, and logs it', async () => {
    const { app, logs } = await appAnswering({ id: '1', name: 'a' }, 'log');
    const reply = await app.inject({ url: '/v1/thing' });
    expect(reply.statusCode).toBe(200);
    expect(logs.text).toContain('does not match its documented schema');
  });
});

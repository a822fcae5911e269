import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startTestServer, type TestServer } from '../../support/server.js';
import { selfSignedCertificate } from '../../support/tls.js';
import { type Api, apiOf, invalidFields } from './support.js';

describe.each(STORES)('variables, client certificates and accounts (%s)', (store) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(store);
    api = apiOf(server);
  });
  afterAll(async () => server?.close());

  describe('/v1/variables', () => {
    it('creates, reads, lists, updates and deletes a variable', async () => {
      const created = await api.post('/v1/variables', { key: 'BASE_URL', value: 'http://127.0.0.1:9' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        key: 'BASE_URL',
        value: 'http://127.0.0.1:9',
        locked: false,
        secret: false,
      });
      expect((await api.get('/v1/variables/BASE_URL')).body).toEqual(created.body);
      expect((await api.get('/v1/variables')).body).toContainEqual(created.body);
      const updated = await api.put('/v1/variables/BASE_URL', { value: 'http://127.0.0.1:10' });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        key: 'BASE_URL',
        value: 'http://127.0.0.1:10',
        updated_at: expect.any(String),
      });
      expect((await api.delete('/v1/variables/BASE_URL')).status).toBe(204);
      expect((await api.get('/v1/variables/BASE_URL')).status).toBe(404);
      expect((await api.delete('/v1/variables/BASE_URL')).status).toBe(404);
      expect((await api.put('/v1/variables/BASE_URL', { value: 'x' })).status).toBe(404);
    });

    it('never returns the value of a secret or locked variable, but keeps it', async () => {
      const secret = await api.post('/v1/variables', { key: 'API_TOKEN', value: 'tok-123', secret: true });
      expect(secret.body).toMatchObject({ key: 'API_TOKEN', value: '*****', secret: true });
      const locked = await api.post('/v1/variables', { key: 'LOCKED_ONE', value: 'lock-456', locked: true });
      expect(locked.body.value).toBe('*****');
      const everything = JSON.stringify([
        (await api.get('/v1/variables')).body,
        (await api.get('/v1/variables/API_TOKEN')).body,
        (await api.put('/v1/variables/API_TOKEN', { locked: true })).body,
        (await api.put('/v1/variables/API_TOKEN', { value: '*****' })).body,
      ]);
      expect(everything).not.toContain('tok-123');
      expect(everything).not.toContain('lock-456');
      const [row] = await server.server.context.db.query<{ value: string }>(
        'SELECT value FROM variables WHERE account_id = $1 AND key = $2',
        [server.accountId, 'API_TOKEN'],
      );
      expect(row?.value).toBe('tok-123');
      const reveal = await api.put('/v1/variables/API_TOKEN', { secret: false });
      expect(reveal.status).toBe(400);
      expect(invalidFields(reveal)).toEqual(['secret']);
    });

    it('refuses a key taken (409), a bad key, a rename and unknown fields (400)', async () => {
      await api.post('/v1/variables', { key: 'TAKEN', value: '1' });
      const taken = await api.post('/v1/variables', { key: 'TAKEN', value: '2' });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
      const bad = await api.post('/v1/variables', { key: '1 bad key', value: 'x', colour: 'red' });
      expect(invalidFields(bad).sort()).toEqual(['colour', 'key']);
      expect(invalidFields(await api.post('/v1/variables', { key: 'NO_VALUE' }))).toEqual(['value']);
      expect(invalidFields(await api.put('/v1/variables/TAKEN', { key: 'OTHER' }))).toEqual(['key']);
    });
  });

  describe('/v1/client-certificates', () => {
    const { cert, key } = selfSignedCertificate({ commonName: 'client.localhost' });

    it('stores a certificate and never returns its key or passphrase', async () => {
      const passphrase = 'correct horse';
      const encrypted = createPrivateKey(key)
        .export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase })
        .toString();
      const created = await api.post('/v1/client-certificates', {
        host: '*.localhost',
        cert,
        key: encrypted,
        ca: cert,
        passphrase,
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        host: '*.localhost',
        cert,
        ca: cert,
        created_at: expect.any(String),
      });
      const fetched = await api.get(`/v1/client-certificates/${created.body.id}`);
      expect(fetched.body).toEqual(created.body);
      const listed = (await api.get('/v1/client-certificates')).body;
      expect(listed).toContainEqual(created.body);
      const shown = JSON.stringify([created.body, fetched.body, listed]);
      expect(shown).not.toContain('PRIVATE KEY');
      expect(shown).not.toContain(passphrase);
      expect((await api.delete(`/v1/client-certificates/${created.body.id}`)).status).toBe(204);
      expect((await api.get(`/v1/client-certificates/${created.body.id}`)).status).toBe(404);
      expect((await api.delete(`/v1/client-certificates/${created.body.id}`)).status).toBe(404);
    });

    it('refuses a host with a scheme, text that is not PEM, a key of another certificate, a wrong passphrase', async () => {
      const other = selfSignedCertificate({ commonName: 'other.localhost' });
      const bad = await api.post('/v1/client-certificates', {
        host: 'https://api.localhost/path',
        cert: 'not a certificate',
        key: 'not a key',
        ca: 'not a ca',
      });
      expect(bad.status).toBe(400);
      expect(invalidFields(bad).sort()).toEqual(['ca', 'cert', 'host', 'key']);
      const mismatch = await api.post('/v1/client-certificates', {
        host: 'api.localhost',
        cert,
        key: other.key,
      });
      expect(invalidFields(mismatch)).toEqual(['key']);
      expect(mismatch.body.message).toContain('not the private key of cert');
      const encrypted = createPrivateKey(key)
        .export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'right' })
        .toString();
      const wrong = await api.post('/v1/client-certificates', {
        host: 'api.localhost',
        cert,
        key: encrypted,
        passphrase: 'wrong',
      });
      expect(invalidFields(wrong)).toEqual(['key']);
      const missing = await api.post('/v1/client-certificates', {});
      expect(invalidFields(missing).sort()).toEqual(['cert', 'host', 'key']);
    });
  });

  describe('/v1/accounts', () => {
    it('returns the caller’s account as an array of Account', async () => {
      const reply = await api.get('/v1/accounts');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual([
        {
          id: server.accountId,
          name: expect.any(String),
          runtimeId: '2026.04',
          plan: expect.any(String),
          planDisplayName: expect.any(String),
          addons: expect.any(Object),
          settings: expect.any(Object),
          alertSettings: expect.any(Object),
        },
      ]);
      expect((await api.get('/v1/accounts/me')).body).toEqual(reply.body[0]);
      // The key alone tells automation its account; a header naming another account is still refused.
      const keyOnly = api.as({ authorization: server.headers.authorization as string });
      expect((await keyOnly.get('/v1/accounts')).body).toEqual(reply.body);
      expect((await keyOnly.get('/v1/accounts/me')).body).toEqual(reply.body[0]);
      expect((await keyOnly.get('/v1/checks')).status).toBe(401);
      const otherAccount = api.as({ ...server.headers, 'x-service-account': 'another-account' });
      expect((await otherAccount.get('/v1/accounts')).status).toBe(403);
      expect((await api.get(`/v1/accounts/${server.accountId}`)).body).toEqual(reply.body[0]);
    });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { type ReceivedRequest, startRecordingServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

let server: TestServer & { received: ReceivedRequest[] };

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

async function sentBy(request: Record<string, unknown>, variables = runContext()) {
  const attempt = await executeApi(apiCheck({ url: server.url('/echo'), ...request }), variables);
  expect(attempt.hasErrors).toBe(false);
  expect(server.received).toHaveLength(1);
  return { attempt, received: server.received[0] as ReceivedRequest };
}

describe('method and body', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'])('sends %s', async (method) => {
    const { received } = await sentBy({ method });
    expect(received.method).toBe(method);
  });

  it('always sends GET for a URL monitor, with no body', async () => {
    await executeUrl(urlCheck({ url: server.url('/page') }), runContext());
    expect(server.received[0]).toMatchObject({ method: 'GET', url: '/page', body: '' });
  });

  it('sends a JSON body with application/json', async () => {
    const body = '{"name":"Ada","age":36}';
    const { received, attempt } = await sentBy({ method: 'POST', bodyType: 'JSON', body });
    expect(received.body).toBe(body);
    expect(received.headers['content-type']).toBe('application/json');
    expect(apiResult(attempt).request.data).toBe(body);
  });

  it('keeps a content-type the check sets itself', async () => {
    const { received } = await sentBy({
      method: 'POST',
      bodyType: 'JSON',
      body: '{}',
      headers: [{ key: 'Content-Type', value: 'application/vnd.api+json' }],
    });
    expect(received.headers['content-type']).toBe('application/vnd.api+json');
  });

  it('encodes the fields of a JSON object as a form', async () => {
    const { received } = await sentBy({
      method: 'POST',
      bodyType: 'FORM',
      body: '{"name":"Ada Lovelace","tags":["a","b"],"n":1}',
    });
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received.body).toBe('name=Ada+Lovelace&tags=a&tags=b&n=1');
  });

  it('sends form text that is not JSON as written', async () => {
    const { received } = await sentBy({ method: 'POST', bodyType: 'FORM', body: 'a=1&b=two' });
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received.body).toBe('a=1&b=two');
  });

  it('sends a RAW body as written, without a content-type', async () => {
    const { received } = await sentBy({ method: 'PUT', bodyType: 'RAW', body: '<xml>raw</xml>' });
    expect(received.body).toBe('<xml>raw</xml>');
    expect(received.headers['content-type']).toBeUndefined();
  });

  it('wraps a GraphQL query as {"query": ...}', async () => {
    const query = '{ user(id: 1) { name } }';
    const { received } = await sentBy({ method: 'POST', bodyType: 'GRAPHQL', body: query });
    expect(received.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received.body)).toEqual({ query });
  });

  it('sends a GraphQL body that already has a query field as written', async () => {
    const body = '{"query":"query Q($id: ID) { user(id: $id) { name } }","variables":{"id":"7"}}';
    const { received } = await sentBy({ method: 'POST', bodyType: 'GRAPHQL', body });
    expect(received.body).toBe(body);
  });

  it('sends no body for bodyType NONE', async () => {
    const { received } = await sentBy({ method: 'POST', bodyType: 'NONE', body: 'ignored' });
    expect(received.body).toBe('');
    expect(received.headers['content-type']).toBeUndefined();
  });
});

describe('headers, query and auth', () => {
  it('sends headers and default ones the check does not set', async () => {
    const { received } = await sentBy({
      headers: [
        { key: 'X-Trace', value: 'abc' },
        { key: 'Accept', value: 'application/json' },
      ],
    });
    expect(received.headers['x-trace']).toBe('abc');
    expect(received.headers.accept).toBe('application/json');
    expect(received.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(received.headers['user-agent']).toMatch(/Vantage/);
  });

  it('appends query parameters to the query the URL has', async () => {
    const { received, attempt } = await sentBy({
      url: server.url('/search?q=first'),
      queryParameters: [
        { key: 'page', value: '2' },
        { key: 'name', value: 'Ada Lovelace & co' },
      ],
    });
    expect(received.url).toBe('/search?q=first&page=2&name=Ada%20Lovelace%20%26%20co');
    expect(apiResult(attempt).request.params).toEqual({ page: '2', name: 'Ada Lovelace & co' });
  });

  it('sends basic auth and masks it in the result', async () => {
    const { received, attempt } = await sentBy({ basicAuth: { username: 'ada', password: 's3cret!' } });
    expect(received.headers.authorization).toBe(`Basic ${Buffer.from('ada:s3cret!').toString('base64')}`);
    const request = apiResult(attempt).request;
    expect(request.headers.authorization).toBe('*****');
    expect(JSON.stringify(attempt)).not.toContain('s3cret!');
    expect(JSON.stringify(attempt)).not.toContain(Buffer.from('ada:s3cret!').toString('base64'));
  });

  it('masks credential headers in the result but sends them', async () => {
    const { received, attempt } = await sentBy({
      headers: [
        { key: 'Cookie', value: 'session=abc123' },
        { key: 'Proxy-Authorization', value: 'Bearer xyz' },
      ],
    });
    expect(received.headers.cookie).toBe('session=abc123');
    expect(apiResult(attempt).request.headers).toMatchObject({
      Cookie: '*****',
      'Proxy-Authorization': '*****',
    });
  });

  it('turns credentials in the URL into basic auth, kept out of the result', async () => {
    const url = server.url('/in-url').replace('://', '://ada:pa%24%24@');
    const { received, attempt } = await sentBy({ url });
    expect(received.headers.authorization).toBe(`Basic ${Buffer.from('ada:pa$$').toString('base64')}`);
    expect(JSON.stringify(apiResult(attempt).request)).not.toMatch(/pa(\$|%24)/);
  });
});

describe('{{VAR}} substitution', () => {
  it('replaces variables in url, headers, query, body and basic auth', async () => {
    const context = runContext({
      variables: [
        { key: 'PATH', value: 'users' },
        { key: 'HEADER', value: 'X-Tenant' },
        { key: 'TENANT', value: 'acme' },
        { key: 'Q', value: 'limit' },
        { key: 'N', value: '5' },
        { key: 'NAME', value: 'Ada' },
        { key: 'USER', value: 'ada' },
        { key: 'PASS', value: 'pw' },
      ],
    });
    const { received } = await sentBy(
      {
        url: `${server.origin}/{{PATH}}`,
        method: 'POST',
        headers: [{ key: '{{HEADER}}', value: 'tenant-{{TENANT}}' }],
        queryParameters: [{ key: '{{Q}}', value: '{{N}}' }],
        bodyType: 'JSON',
        body: '{"name":"{{NAME}}","unknown":"{{NOPE}}"}',
        basicAuth: { username: '{{USER}}', password: '{{PASS}}' },
      },
      context,
    );
    expect(received.url).toBe('/users?limit=5');
    expect(received.headers['x-tenant']).toBe('tenant-acme');
    expect(received.body).toBe('{"name":"Ada","unknown":"{{NOPE}}"}');
    expect(received.headers.authorization).toBe(`Basic ${Buffer.from('ada:pw').toString('base64')}`);
  });

  it('fails, without throwing, naming the variable when a URL uses one nobody defined', async () => {
    const attempt = await executeApi(apiCheck({ url: '{{BASE}}/x' }), runContext());
    // Not a network error: a retry on NETWORK_ERROR would fail the same way.
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toBe(
      'the URL uses {{BASE}}, which no variable defines (of the check, its group or the account): {{BASE}}/x',
    );
    const broken = await executeApi(apiCheck({ url: 'http://exa mple.com:99999/' }), runContext());
    expect(broken.error).toMatch(/^invalid URL: /);
  });
});

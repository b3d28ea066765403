import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createRateLimiters } from '../../src/rate-limits/limiters';
import { restRoutes, schema } from '../../src/modules';
import { buildOpenApiDocument, documentedQueryParameters } from '../../src/rest/openapi';
import { fullPath } from '../../src/routing/route-table';
import { httpBackends, openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, useApiFixture, type TestServer } from '../support/http';

/** Whether a route template such as /api/v1/x/:id covers a concrete path (/api/v1/x/batch-delete is also an :id). */
const covers = (template: string, path: string) => {
  const t = template.split('/');
  const p = path.split('/');
  return t.length === p.length && t.every((segment, i) => segment.startsWith(':') || segment === p[i]);
};
/** Every REST path of the table with its parameters filled in, and the methods the table serves there. */
const restPaths = [...new Set(restRoutes.map((r) => fullPath(r)))].map((template) => {
  const path = template.replace(':entityType', 'product').replace(/:\w+/g, '1');
  return { template, path, methods: [...new Set(restRoutes.filter((r) => covers(fullPath(r), path)).map((r) => r.method))] };
});
const fixedGetPaths = ['/health', '/ready', '/metrics', '/api/doc', '/.well-known/ai-context', '/api/reference', '/admin'];

const allowOf = (methods: string[]) => [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
const parseAllow = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((m) => m.trim())
    .sort();

describe.each(httpBackends)('HTTP conventions on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const send = (method: string, path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? ctx.api.token : init.token;
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(`${ctx.api.url}${path}`, { ...init, method, headers });
  };

  it.each(restPaths)('$template: OPTIONS and 405 name the allowed methods, HEAD mirrors GET', async ({ path, methods }) => {
    const options = await send('OPTIONS', path, { token: null });
    expect(options.status).toBe(204);
    expect(parseAllow(options.headers.get('allow'))).toEqual(allowOf(methods));

    const put = await send('PUT', path, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(put.status).toBe(405);
    expect(put.statusText).toBe('Method Not Allowed');
    expect(parseAllow(put.headers.get('allow'))).toEqual(allowOf(methods));
    expect(put.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await put.json()).error.code).toBe('METHOD_NOT_ALLOWED');

    if (methods.includes('GET')) {
      const get = await send('GET', path);
      const getBody = await get.arrayBuffer();
      const head = await send('HEAD', path);
      expect(head.status).toBe(get.status);
      expect(head.statusText).toBe(get.statusText);
      expect(head.statusText).not.toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      // Same route, same answer size (give or take a request id of the same length).
      expect(Number(head.headers.get('content-length'))).toBe(getBody.byteLength);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    } else {
      const head = await send('HEAD', path);
      expect(head.status).toBe(405);
    }
  });

  it.each(fixedGetPaths)('%s answers HEAD like GET, OPTIONS with Allow and POST with 405', async (path) => {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const options = await send('OPTIONS', path, { token: null });
    expect(options.status).toBe(204);
    expect(parseAllow(options.headers.get('allow'))).toEqual(['GET', 'HEAD', 'OPTIONS']);
    const post = await send('POST', path, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(post.status).toBe(405);
    expect(parseAllow(post.headers.get('allow'))).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  it('/graphql: HEAD mirrors the GraphiQL page and a GET query', async () => {
    for (const accept of ['text/html', 'application/json']) {
      const get = await send('GET', '/graphql?query=%7B__typename%7D', { headers: { accept } });
      const length = (await get.arrayBuffer()).byteLength;
      const head = await send('HEAD', '/graphql?query=%7B__typename%7D', { headers: { accept } });
      expect({
        accept,
        status: head.status,
        type: head.headers.get('content-type'),
        length: Number(head.headers.get('content-length')),
      }).toEqual({
        accept,
        status: get.status,
        type: get.headers.get('content-type'),
        length,
      });
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('/graphql: OPTIONS names GET, HEAD, POST; other methods get 405 in GraphQL shape', async () => {
    const options = await send('OPTIONS', '/graphql', { token: null });
    expect(options.status).toBe(204);
    expect(parseAllow(options.headers.get('allow'))).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    const del = await send('DELETE', '/graphql');
    expect(del.status).toBe(405);
    expect(parseAllow(del.headers.get('allow'))).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    expect((await del.json()).errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('gives JSON a charset and every answer a reason phrase, errors included', async () => {
    const cases: Array<[string, string, RequestInit & { token?: string | null }]> = [
      ['GET', '/api/v1/updated-products', {}],
      ['GET', '/api/v1/updated-products', { token: null }],
      ['GET', '/api/v1/nothing-here', {}],
      ['GET', '/api/v1/failures/999999', {}],
      ['POST', '/api/v1/products', { body: '{"products": [{}]}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/graphql', { body: '{"query":"{ pendingChanges { products } }"}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/graphql', { body: '{"query":"{ nope }"}', headers: { 'content-type': 'application/json' } }],
      ['GET', '/health', {}],
      ['GET', '/api/doc', {}],
    ];
    for (const [method, path, init] of cases) {
      const res = await send(method, path, init);
      expect({ path, reason: res.statusText }).toEqual({ path, reason: expect.stringMatching(/^[A-Z]/) });
      const type = res.headers.get('content-type') ?? '';
      if (/json/.test(type)) expect({ path, type }).toEqual({ path, type: expect.stringMatching(/json; charset=utf-8$/) });
    }
  });

  it('answers an unauthenticated /graphql request in GraphQL shape, still 401', async () => {
    for (const token of [null, 'sgw_not-a-real-token']) {
      const res = await send('POST', '/graphql', {
        token,
        body: '{"query":"{ pendingChanges { products } }"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(401);
      expect(res.statusText).toBe('Unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      const body = await res.json();
      expect(body).toEqual({
        errors: [
          { message: expect.any(String), extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', requestId: expect.any(String) }) },
        ],
      });
    }
    // REST keeps its own error body.
    const rest = await send('GET', '/api/v1/updated-products', { token: null });
    expect((await rest.json()).error.code).toBe('UNAUTHENTICATED');
  });

  it('points Location at the failure a 201 created, also when the answer is replayed', async () => {
    const init = {
      body: JSON.stringify({ entity_type: 'product', external_id: 'SKU-LOC', source: 'erp', error_message: 'bad price' }),
      headers: { 'content-type': 'application/json', 'idempotency-key': `loc-${randomBytes(6).toString('hex')}` },
    };
    const created = await send('POST', '/api/v1/failures', init);
    expect(created.status).toBe(201);
    expect(created.statusText).toBe('Created');
    const { id } = await created.json();
    expect(created.headers.get('location')).toBe(`/api/v1/failures/${id}`);
    const followed = await send('GET', created.headers.get('location')!);
    expect(followed.status).toBe(200);
    expect((await followed.json()).id).toBe(id);
    const replayed = await send('POST', '/api/v1/failures', init);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('location')).toBe(`/api/v1/failures/${id}`);
  });

  it('refuses query parameters a route does not document, naming them', async () => {
    await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'SKU-1' }, { external_id: 'SKU-3' }] } });
    const res = await ctx.api.request('GET', '/api/v1/updated-products?external_id=SKU-3&limit=10');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'external_id', message: expect.stringMatching(/^Unknown query parameter; this route takes .*since/) },
    ]);
    const post = await ctx.api.request('POST', '/api/v1/products?preview=true', { body: { products: [{ external_id: 'SKU-9' }] } });
    expect(post.status).toBe(400);
    expect(post.body.error.details).toEqual([expect.objectContaining({ field: 'preview' })]);
    expect(await ctx.db.prisma.product.count({ where: { externalId: 'SKU-9' } })).toBe(0);
  });

  const document = buildOpenApiDocument(schema, restRoutes);
  it.each(restRoutes.map((route) => ({ route, name: `${route.method} ${route.path}` })))(
    '$name accepts every query parameter it documents',
    async ({ route }) => {
      const documented = [...documentedQueryParameters(document, route)];
      const path = fullPath(route).replace(':entityType', 'product').replace(/:\w+/g, '1');
      const query = documented.map((name) => `${name}=1`).join('&');
      const res = await ctx.api.request(route.method, `${path}${query ? `?${query}` : ''}`, route.method === 'GET' ? {} : { body: {} });
      const unknown = ((res.body?.error?.details ?? []) as Array<{ message: string }>).filter((d) =>
        d.message.startsWith('Unknown query parameter'),
      );
      expect(unknown).toEqual([]);
    },
  );

  it('lets graphql-ws clients send the token with or without Bearer', async () => {
    for (const authorization of [ctx.api.token, `Bearer ${ctx.api.token}`]) {
      const client = createClient({
        url: `${ctx.api.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization },
        retryAttempts: 0,
        lazy: true,
      });
      try {
        const result = await new Promise<unknown>((resolve, reject) => {
          client.subscribe({ query: '{ pendingChanges { products } }' }, { next: resolve, error: reject, complete: () => undefined });
        });
        expect(result).toEqual({ data: { pendingChanges: { products: expect.any(Number) } } });
      } finally {
        await client.dispose();
      }
    }
  });
});

describe('with tight rate limits, and with CORS on', () => {
  let db: TestDatabase;
  let api: TestServer;
  let withCors: TestServer;
  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    api = await startTestServer(db, {
      rateLimiters: createRateLimiters({ readPerMinute: 1, writePerMinute: 1 }, undefined, `conv-${randomBytes(4).toString('hex')}`),
    });
    withCors = await startTestServer(db, { corsOrigins: ['https://shop.example'] });
  });
  afterAll(async () => {
    await api?.close();
    await withCors?.close();
    await db?.close();
  });

  it('OPTIONS names the allowed methods when Yoga CORS answers it, preflight or not', async () => {
    for (const headers of [{}, { origin: 'https://shop.example', 'access-control-request-method': 'GET' }] as Array<
      Record<string, string>
    >) {
      const res = await fetch(`${withCors.url}/api/v1/updated-products`, { method: 'OPTIONS', headers });
      expect(res.status).toBe(204);
      expect(parseAllow(res.headers.get('allow'))).toEqual(['GET', 'HEAD', 'OPTIONS']);
    }
  });

  it('/graphql answers 429 in GraphQL shape with Retry-After', async () => {
    expect((await api.graphql('{ pendingChanges { products } }')).status).toBe(200);
    const limited = await api.graphql('{ pendingChanges { products } }');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body).toEqual({
      errors: [{ message: expect.stringMatching(/Too many reads/), extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) }],
    });
  });
});

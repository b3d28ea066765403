import { createHash } from 'node:crypto';
import { createToken, listTokens, revokeToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { waitFor } from '../support/wait-for';

describe.each(backends)('bearer authentication on %s', (backend) => {
  const ctx = useApiFixture(backend);

  it.each([
    ['no Authorization header', null, {}],
    ['an unknown token', 'sgw_not-a-real-token', {}],
    ['a non-bearer scheme', null, { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 with the standard body for %s', async (_name, token, headers) => {
    for (const [method, path] of [
      ['GET', '/api/v1/updated-products'],
      ['POST', '/api/v1/products'],
      ['POST', '/graphql'],
    ] as const) {
      const res = await ctx.api.request(method, path, { token, headers, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      // /graphql answers in GraphQL's error shape, the same code in extensions.
      const error = path === '/graphql' ? { message: res.body.errors[0].message, ...res.body.errors[0].extensions } : res.body.error;
      expect(error).toEqual(
        expect.objectContaining({ code: 'UNAUTHENTICATED', message: expect.any(String), requestId: expect.any(String) }),
      );
    }
  });

  it('rejects a request before touching data', async () => {
    await ctx.api.request('POST', '/api/v1/products', { token: null, body: { external_id: 'NOPE' } });
    expect(await ctx.db.prisma.product.count({ where: { externalId: 'NOPE' } })).toBe(0);
  });

  it('serves /health, /api/doc and /.well-known/ai-context without a token', async () => {
    const health = await ctx.api.request('GET', '/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', backend });
    expect((await ctx.api.request('GET', '/api/doc', { token: null })).status).toBe(200);
    const ai = await ctx.api.request('GET', '/.well-known/ai-context', { token: null });
    expect(ai.status).toBe(200);
    expect(ai.headers.get('content-type')).toMatch(/^text\/markdown/);
  });

  it('serves the GraphiQL page without a token, but executes no query without one', async () => {
    const page = await fetch(`${ctx.api.url}/graphql?query=${encodeURIComponent('{ pendingChanges { products } }')}`, {
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).not.toMatch(/"pendingChanges":\{/);
    const query = await fetch(`${ctx.api.url}/graphql?query=${encodeURIComponent('{ pendingChanges { products } }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(query.status).toBe(401);
  });

  it('stores only the SHA-256 of a token, records lastUsedAt and stops accepting it once revoked', async () => {
    const { token, summary } = await createToken(ctx.db.prisma, 'webshop', 'integration');
    expect(token).toMatch(/^sgw_[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    const row = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: summary.id } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    expect(row.lastUsedAt).toBeNull();

    expect((await ctx.api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);
    const used = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: summary.id } });
    expect(used.lastUsedAt).toBeInstanceOf(Date);

    await revokeToken(ctx.db.prisma, 'webshop');
    expect((await ctx.api.request('GET', '/api/v1/updated-products', { token })).status).toBe(401);
    expect((await listTokens(ctx.db.prisma)).find((t) => t.id === summary.id)?.revokedAt).toBeInstanceOf(Date);
  });

  it('refuses a duplicate token name and an unknown revoke target', async () => {
    await createToken(ctx.db.prisma, 'dup');
    await expect(createToken(ctx.db.prisma, 'dup')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(revokeToken(ctx.db.prisma, 'no-such-token')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("returns the caller's X-Request-Id when it is sane, and a fresh one otherwise", async () => {
    const given = await ctx.api.request('GET', '/health', { token: null, headers: { 'x-request-id': 'erp-batch-42' } });
    expect(given.headers.get('x-request-id')).toBe('erp-batch-42');
    const hostile = await ctx.api.request('GET', '/health', { token: null, headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.each(backends)('the verified-token cache on %s', (backend) => {
  // Long enough that the request right after the revocation is surely inside it on a busy machine.
  const TTL_MS = 5_000;
  const ctx = useApiFixture(backend, { tokenCacheTtlMs: TTL_MS });

  it('trusts a verified token for the TTL only: a revocation made elsewhere takes effect once it expires', async () => {
    const { token } = await createToken(ctx.db.prisma, 'cached-shop');
    expect((await ctx.api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);
    // Revoked out of band, as the CLI or another replica would: this process still trusts it briefly…
    await revokeToken(ctx.db.prisma, 'cached-shop');
    expect((await ctx.api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);
    // …and not once the TTL has run out (the bound only ends a failing test).
    const status = async () => (await ctx.api.request('GET', '/api/v1/updated-products', { token })).status;
    await waitFor(async () => (await status()) === 401, 60_000, 'refused after the TTL', { intervalMs: 200 });
  });
});

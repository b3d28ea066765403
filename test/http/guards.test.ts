import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

describe('request guards (embedded store)', () => {
  let db: TestDatabase;
  let api: TestServer;

  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    api = await startTestServer(db, { maxBodyBytes: 64 * 1024, corsOrigins: ['https://shop.example'] });
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
  });

  it('rejects GraphQL operations that are too deep, too aliased or too long, without executing them', async () => {
    const deep = `{ partners { payload { ${'children { '.repeat(14)}id${' }'.repeat(14)} } } }`;
    const tooDeep = await api.graphql(deep);
    expect(tooDeep.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(tooDeep.body.errors[0].message).toMatch(/depth/i);
    expect(tooDeep.body.data).toBeUndefined();

    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: pendingChanges { products }`).join(' ')} }`;
    const tooAliased = await api.graphql(aliases);
    expect(tooAliased.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(tooAliased.body.errors[0].message).toMatch(/alias/i);

    const long = `{ ${Array.from({ length: 3000 }, () => '__typename').join(' ')} }`;
    expect((await api.graphql(long)).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

    // An ordinary dashboard query passes.
    expect((await api.graphql('{ partners { payload { children { children { id } } } } }')).body.errors).toBeUndefined();
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'X', blob: 'x'.repeat(70 * 1024) }] } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await db.prisma.product.count()).toBe(0);
  });

  it('puts security headers on every response, errors included', async () => {
    for (const res of [
      await api.request('GET', '/health', { token: null }),
      await api.request('GET', '/api/v1/updated-products', { token: null }),
      await api.request('GET', '/api/v1/updated-products'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('allows CORS only for the configured origins', async () => {
    const preflight = (origin: string) =>
      fetch(`${api.url}/api/v1/updated-products`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight('https://shop.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const denied = await preflight('https://evil.example');
    expect(denied.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
  });
});

describe('CORS by default', () => {
  it('is off', async () => {
    const db = await openTestDatabase('embedded');
    const api = await startTestServer(db);
    try {
      const res = await fetch(`${api.url}/api/v1/updated-products`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await api.close();
      await db.close();
    }
  });
});

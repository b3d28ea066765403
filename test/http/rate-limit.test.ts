import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createToken } from '../../src/auth/token.service';
import { createRateLimiters } from '../../src/rate-limits/limiters';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

describe.each(backends)('rate limits on %s', (backend) => {
  let db: TestDatabase;
  let api: TestServer;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());
  beforeEach(async () => {
    // Fresh budgets for every test: reads 5, writes 3 per minute.
    api = await startTestServer(db, { rateLimiters: createRateLimiters({ readPerMinute: 5, writePerMinute: 3 }) });
  });
  afterEach(() => api.close());

  it('counts reads per token, with the headers on every response, and answers 429 past the limit', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await api.request('GET', '/api/v1/updated-products');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(4 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
    }
    const limited = await api.request('GET', '/api/v1/updated-products');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', requestId: expect.any(String) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

    // Writes have their own budget, and another token its own.
    expect((await api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: [1] } })).status).toBe(200);
    const { token } = await createToken(db.prisma, `other-${backend}-${Date.now()}`);
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);
  });

  it('applies nothing of a rejected write', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await api.request('POST', '/api/v1/products', { body: { external_id: `RL-${backend}-${i}` } })).status).toBe(200);
    }
    const rejected = await api.request('POST', '/api/v1/products', { body: { external_id: `RL-${backend}-rejected` } });
    expect(rejected.status).toBe(429);
    expect(await db.prisma.product.count({ where: { externalId: `RL-${backend}-rejected` } })).toBe(0);
  });

  it('counts a GraphQL query as a read and a mutation as a write, whatever the HTTP method', async () => {
    for (let i = 0; i < 3; i++) expect((await api.graphql('mutation { acknowledgeProducts(ids: [1]) { acknowledged } }')).status).toBe(200);
    const fourth = await api.graphql('mutation { acknowledgeProducts(ids: [1]) { acknowledged } }');
    expect(fourth.status).toBe(429);
    const query = await api.graphql('{ pendingChanges { products } }');
    expect(query.status).toBe(200);
    expect(query.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('limits unauthenticated requests per client IP, 401s and public documents included', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await api.request('GET', '/api/doc', { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    }
    // Probes are never limited (nor do they touch Redis): they must answer while Redis is down.
    for (const probe of ['/health', '/ready']) {
      const res = await api.request('GET', probe, { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await api.request('GET', '/api/v1/updated-products', { token: 'sgw_guess-1' })).status).toBe(401);
    const last = await api.request('GET', '/api/v1/updated-products', { token: 'sgw_guess-2' });
    expect(last.status).toBe(401);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const blocked = await api.request('GET', '/api/v1/updated-products', { token: 'sgw_guess-3' });
    expect(blocked.status).toBe(429);
    // The authenticated token is not affected by the IP's budget.
    expect((await api.request('GET', '/api/v1/updated-products')).status).toBe(200);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
const describeWithRedis = redisUrl ? describe : describe.skip;

describeWithRedis('rate limits shared through Redis', () => {
  it('hold one budget across two replicas', async () => {
    const db = await openTestDatabase('embedded');
    const redis = [new Redis(redisUrl!), new Redis(redisUrl!)];
    // A client that is not connected yet counts in memory (rejectIfRedisNotReady): wait for both.
    await Promise.all(redis.map((r) => (r.status === 'ready' ? undefined : new Promise((resolve) => r.once('ready', resolve)))));
    const limits = { readPerMinute: 7, writePerMinute: 10 };
    // A key prefix of its own keeps this run's counters apart from any other run's.
    const prefix = `sgw-test-${randomUUID()}`;
    const replicas = await Promise.all(redis.map((r) => startTestServer(db, { rateLimiters: createRateLimiters(limits, r, prefix) })));
    const { token } = await createToken(db.prisma, 'shared-budget');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < limits.readPerMinute + 2; i++) {
        statuses.push((await replicas[i % 2]!.request('GET', '/api/v1/updated-products', { token })).status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(limits.readPerMinute);
      expect(statuses.slice(-2)).toEqual([429, 429]);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
      await Promise.all(redis.map((r) => r.quit()));
      await db.close();
    }
  });
});

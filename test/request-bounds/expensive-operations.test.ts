import { createToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture, type JsonResponse } from '../support/http';

/**
 * Expensive operations in flight (ADR 0043): at most MAX_EXPENSIVE_OPERATIONS_PER_TOKEN per token
 * (429 beyond, at once) and MAX_EXPENSIVE_OPERATIONS per replica (503 after EXPENSIVE_OPERATION_WAIT_MS).
 * The expensive operations are held inside the database by a transaction that locks the products
 * table, so that "running" is a state the test controls rather than a race it hopes to win.
 */

const EXPENSIVE = '{ products(limit: 500) { payload { id } } }'; // 500 nodes
const WAIT_MS = 300;

describe.each(backends)('expensive operations in flight on %s', (backend) => {
  const fixture = useApiFixture(backend, {
    tokenCacheTtlMs: 60_000, // requests authenticate from the cache while the store is held
    // No rest after each (expensive-slots.test.ts covers it): a slot passes on as soon as it is given back.
    requestBounds: {
      expensiveQueryNodes: 100,
      maxExpensivePerToken: 2,
      maxExpensiveOperations: 4,
      expensiveWaitMs: WAIT_MS,
      expensiveRestRatio: 0,
    },
  });

  const graphql = (token: string, query: string): Promise<JsonResponse> =>
    fixture.api.request('POST', '/graphql', { body: { query }, token, headers: { accept: 'application/graphql-response+json' } });

  /** Holds the products table (PGlite: the whole store) until the returned function is called. */
  async function holdProducts(): Promise<() => Promise<void>> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const transaction = fixture.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    await isLocked;
    return async () => {
      release();
      await transaction;
    };
  }

  const running = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('refuses a third expensive operation of one token with 429, on GraphQL and REST, and runs the first two', async () => {
    const { api } = fixture;
    await api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'SKU-1', name: 'One' }] } });
    expect((await graphql(api.token, EXPENSIVE)).status).toBe(200); // runs alone; the token is now cached
    const release = await holdProducts();
    const held = [graphql(api.token, EXPENSIVE), graphql(api.token, EXPENSIVE)];
    try {
      await running();
      const third = await graphql(api.token, EXPENSIVE);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(third.body.errors[0]).toMatchObject({
        message: expect.stringContaining('MAX_EXPENSIVE_OPERATIONS_PER_TOKEN'),
        extensions: { code: 'RATE_LIMITED', bound: 'MAX_EXPENSIVE_OPERATIONS_PER_TOKEN', limit: 2, nodes: 500 },
      });
      const rest = await api.request('GET', '/api/v1/updated-products?limit=500');
      expect(rest.status).toBe(429);
      expect(rest.headers.get('retry-after')).toBe('1');
      expect(rest.body.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('at once per token') });
      // A cheap operation is not counted against the share (it waits for the store like any other).
      const cheap = graphql(api.token, '{ products(limit: 1) { payload { id } } }');
      await release();
      expect((await cheap).status).toBe(200);
    } finally {
      await release();
    }
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
    expect((await graphql(api.token, EXPENSIVE)).status).toBe(200); // the slots were given back
  });

  it('lets an expensive operation wait for a busy replica, then answers 503', async () => {
    const { api, db } = fixture;
    const [b, c] = await Promise.all(['bounds-b', 'bounds-c'].map((name) => createToken(db.prisma, `${name}-${backend}`)));
    for (const token of [b!.token, c!.token]) expect((await graphql(token, '{ pendingChanges { products } }')).status).toBe(200);
    const release = await holdProducts();
    // Four running: the replica's share, two tokens' shares.
    const held = [api.token, api.token, b!.token, b!.token].map((token) => graphql(token, EXPENSIVE));
    try {
      await running();
      const started = Date.now();
      const waited = await graphql(c!.token, EXPENSIVE);
      expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 20);
      expect(waited.status).toBe(503);
      expect(waited.headers.get('retry-after')).toBe('1');
      expect(waited.body.errors[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', bound: 'MAX_EXPENSIVE_OPERATIONS', limit: 4 });

      // One that is still waiting when a slot is given back runs.
      const queued = graphql(c!.token, EXPENSIVE);
      await new Promise((resolve) => setTimeout(resolve, WAIT_MS / 3));
      await release();
      expect((await queued).status).toBe(200);
    } finally {
      await release();
    }
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
  });
});

import { createToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture, type ApiFixture, type JsonResponse } from '../support/http';
import { waitFor } from '../support/wait-for';

/**
 * Expensive operations in flight (ADR 0043): at most MAX_EXPENSIVE_OPERATIONS_PER_TOKEN per token
 * (429 beyond, at once) and MAX_EXPENSIVE_OPERATIONS per replica (503 after EXPENSIVE_OPERATION_WAIT_MS).
 * The expensive operations are held inside the database by a transaction that locks the products
 * table, so that "running" is a state the test controls rather than a race it hopes to win; and the
 * test sees them take their slots before it sends the next request (`slotChecks`).
 */

const EXPENSIVE = '{ products(limit: 500) { payload { id } } }'; // 500 nodes

/** The bounds of these tests, with EXPENSIVE_OPERATION_WAIT_MS. */
const bounds = (expensiveWaitMs: number) => ({
  tokenCacheTtlMs: 60_000, // requests authenticate from the cache while the store is held
  // No rest after each (expensive-slots.test.ts covers it): a slot passes on as soon as it is given back.
  requestBounds: {
    expensiveQueryNodes: 100,
    maxExpensivePerToken: 2,
    maxExpensiveOperations: 4,
    expensiveWaitMs,
    expensiveRestRatio: 0,
  },
});

/**
 * Counts the operations that reach the expensive-slot check from now on. The check reads
 * EXPENSIVE_QUERY_NODES from the running server's bounds (read on every request) and, for an
 * expensive operation, takes a slot (or its place in the queue) in the same turn of the event
 * loop: once the count has reached n, n operations hold a slot or wait for one.
 */
function slotChecks(fixture: ApiFixture): { count(): number; restore(): void } {
  const bounds = fixture.api.requestBounds;
  const value = bounds.expensiveQueryNodes;
  let reads = 0;
  Object.defineProperty(bounds, 'expensiveQueryNodes', { configurable: true, enumerable: true, get: () => (reads++, value) });
  return {
    count: () => reads,
    restore: () => Object.defineProperty(bounds, 'expensiveQueryNodes', { configurable: true, enumerable: true, writable: true, value }),
  };
}

/** Sends `tokens.length` expensive operations and waits until each holds its slot. */
async function running(fixture: ApiFixture, tokens: string[]): Promise<Array<Promise<JsonResponse>>> {
  const checks = slotChecks(fixture);
  try {
    const held = tokens.map((token) => graphqlAs(fixture, token, EXPENSIVE));
    await waitFor(() => checks.count() >= tokens.length, 30_000, `${tokens.length} expensive operations running`);
    return held;
  } finally {
    checks.restore();
  }
}

const graphqlAs = (fixture: ApiFixture, token: string, query: string): Promise<JsonResponse> =>
  fixture.api.request('POST', '/graphql', { body: { query }, token, headers: { accept: 'application/graphql-response+json' } });

/** Holds still in place when a test ends (it failed midway): released, so that its requests end too. */
const holds: Array<() => Promise<void>> = [];
afterEach(() => Promise.all(holds.splice(0).map((release) => release())));

/** Holds the products table until the returned function is called. */
async function holdProducts(fixture: ApiFixture): Promise<() => Promise<void>> {
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
  const releaseHold = async () => {
    release();
    await transaction;
  };
  holds.push(releaseHold);
  return releaseHold;
}

describe.each(backends)('expensive operations in flight on %s', (backend) => {
  // The wait for a busy replica's turn is short: its 503 is what the test waits for.
  const fixture = useApiFixture(backend, bounds(300));

  const graphql = (token: string, query: string) => graphqlAs(fixture, token, query);

  it('refuses a third expensive operation of one token with 429, on GraphQL and REST, and runs the first two', async () => {
    const { api } = fixture;
    await api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'SKU-1', name: 'One' }] } });
    expect((await graphql(api.token, EXPENSIVE)).status).toBe(200); // runs alone; the token is now cached
    const release = await holdProducts(fixture);
    const held = await running(fixture, [api.token, api.token]);
    try {
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
    const release = await holdProducts(fixture);
    // Four running: the replica's share, two tokens' shares.
    const held = await running(fixture, [api.token, api.token, b!.token, b!.token]);
    try {
      // Its turn never comes while the four run (the test releases them only below): 503.
      const waited = await graphql(c!.token, EXPENSIVE);
      expect(waited.status).toBe(503);
      expect(waited.headers.get('retry-after')).toBe('1');
      expect(waited.body.errors[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', bound: 'MAX_EXPENSIVE_OPERATIONS', limit: 4 });
    } finally {
      await release();
    }
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
  });
});

describe.each(backends)('an expensive operation waiting its turn on %s', (backend) => {
  // A wait far longer than the test: the one queued below is still waiting when a slot comes back.
  const fixture = useApiFixture(backend, bounds(120_000));

  it('runs once one of the operations ahead of it gives its slot back', async () => {
    const { api, db } = fixture;
    const [b, c] = await Promise.all(['wait-b', 'wait-c'].map(async (name) => (await createToken(db.prisma, `${name}-${backend}`)).token));
    for (const token of [b!, c!]) expect((await graphqlAs(fixture, token, EXPENSIVE)).status).toBe(200); // cached now
    const release = await holdProducts(fixture);
    const held = await running(fixture, [api.token, api.token, b!, b!]);
    try {
      const [queued] = await running(fixture, [c!]); // in the queue
      expect(queued).toBeDefined();
      await release();
      expect((await queued!).status).toBe(200);
    } finally {
      await release();
    }
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
  });
});

import { Client } from 'pg';
import { createPostgresDatabase } from '../support/database';
import { postgresEnv, runCli, serveProcess, webhookAddArgs, type ServeProcess } from '../support/process';
import { startReceiver } from '../support/receiver';
import { openSse } from '../support/sse';
import { untilLive, waitFor, waitForValue } from '../support/wait-for';

/**
 * Two replicas of `sync-gateway serve` on loopback, as production runs them: one PostgreSQL, one
 * Redis, no state of their own. The PostgreSQL is a database of its own on the embedded test
 * cluster (DATABASE_URL over its socket), once per run. Needs TEST_REDIS_URL (CI sets it).
 */
const describeWithServers = process.env.TEST_REDIS_URL ? describe : describe.skip;

const TIMEOUT_MS = 300_000;

/** Queue items not completed yet. */
async function openItems(databaseUrl: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return Number((await db.query(`SELECT count(*) AS n FROM outbound_queue_items WHERE status <> 'completed'`)).rows[0].n);
  } finally {
    await db.end();
  }
}
const READS_PER_MINUTE = 30;

describeWithServers('two replicas on one PostgreSQL and one Redis', () => {
  let database: { url: string; drop(): Promise<void> };
  let env: NodeJS.ProcessEnv;
  let a: ServeProcess;
  let b: ServeProcess;
  let token: string;
  let limitedToken: string;

  const post = (replica: ServeProcess, path: string, body: unknown, bearer = token) =>
    fetch(`${replica.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const report = (replica: ServeProcess, externalId: string, entityType = 'product') =>
    post(replica, '/api/v1/failures', {
      entity_type: entityType,
      external_id: externalId,
      source: 'erp',
      error_message: 'Unknown tax class',
    });
  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    env = postgresEnv(database.url, {
      REDIS_URL: process.env.TEST_REDIS_URL,
      RATE_LIMIT_READ_PER_MINUTE: String(READS_PER_MINUTE),
      RATE_LIMIT_WRITE_PER_MINUTE: '100000',
      // A replica killed mid-delivery leaves leases that the other takes over after this. Not
      // shorter: a lease that runs out under a busy machine's stall is a delivery made twice (at
      // least once, by design), and the 1,000 deliveries below must go out exactly once.
      WORKER_LEASE_MS: '10000',
      // The receiver listens on loopback, which deliveries may not reach unless allowed.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    });
    expect((await runCli(env, ['migrate'])).code).toBe(0);
    token = (await runCli(env, ['token', 'create', '--name', 'erp'])).stdout.trim().split('\n').pop()!;
    limitedToken = (await runCli(env, ['token', 'create', '--name', 'webshop'])).stdout.trim().split('\n').pop()!;
    [a, b] = await Promise.all([serveProcess(env), serveProcess(env)]);
  }, TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  }, TIMEOUT_MS);

  it(
    'delivers a failure reported to replica A to a subscriber on replica B',
    async () => {
      type Event = { data: { syncFailure: { entity_type: string; external_id: string } } };
      const stream = await openSse<Event>(b.url, token, 'subscription { syncFailure(entityType: sale_order) { entity_type external_id } }');
      try {
        // Until a failure reported to A reaches B, B's SUBSCRIBE may not have reached Redis yet.
        await untilLive(
          (n) => report(a, `PROBE-${n}`, 'sale_order'),
          () => stream.events.some((e) => e.data.syncFailure.external_id.startsWith('PROBE-')),
        );
        expect((await report(a, 'SO-1', 'sale_order')).status).toBe(201);
        // Found by id: the Redis of the test run is shared, and another suite's failures may pass through it.
        const event = await waitForValue(() => stream.events.find((e) => e.data.syncFailure.external_id === 'SO-1'), 30_000, 'SO-1 on B');
        expect(event).toEqual({ data: { syncFailure: { entity_type: 'sale_order', external_id: 'SO-1' } } });
      } finally {
        await stream.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'holds one rate limit across both replicas',
    async () => {
      const statuses: number[] = [];
      for (let i = 0; i < READS_PER_MINUTE + 10; i++) {
        const replica = i % 2 === 0 ? a : b;
        statuses.push(
          (await fetch(`${replica.url}/api/v1/updated-products`, { headers: { authorization: `Bearer ${limitedToken}` } })).status,
        );
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(READS_PER_MINUTE);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      expect(statuses.slice(0, READS_PER_MINUTE).every((s) => s === 200)).toBe(true);
    },
    TIMEOUT_MS,
  );

  it(
    'makes 1,000 deliveries exactly once between them, both replicas working',
    async () => {
      const receiver = await startReceiver();
      try {
        expect((await runCli(env, webhookAddArgs(receiver.url, 'product', 'to_webshop', 'replica-secret-0123'))).code).toBe(0);
        const ids = Array.from({ length: 1000 }, (_, i) => `EX-${i}`);
        for (let i = 0; i < ids.length; i += 50) {
          const statuses = await Promise.all(
            ids
              .slice(i, i + 50)
              .map((id, j) => report((i + j) % 2 === 0 ? a : b, id))
              .map(async (r) => (await r).status),
          );
          expect(statuses.every((s) => s === 201)).toBe(true);
        }
        await waitFor(() => receiver.requests.length >= 1000, 120_000, '1,000 deliveries');
        // Every item recorded as completed: none is claimed or due any more, so none goes out again.
        await waitFor(async () => (await openItems(database.url)) === 0, 60_000, 'every item completed');
        const delivered = receiver.requests.map((r) => JSON.parse(r.body).external_id as string);
        expect(delivered).toHaveLength(1000);
        expect(new Set(delivered)).toEqual(new Set(ids));
        expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1000);
        // Each replica's worker delivered some of them (its /metrics counts its own attempts).
        const completed = async (replica: ServeProcess) => {
          const text = await (await fetch(`${replica.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
          return Number(/sync_gateway_webhook_delivery_attempts_total\{outcome="completed"\} (\d+)/.exec(text)?.[1] ?? 0);
        };
        const [byA, byB] = await Promise.all([completed(a), completed(b)]);
        expect(byA + byB).toBe(1000);
        expect(byA).toBeGreaterThan(0);
        expect(byB).toBeGreaterThan(0);
        // The worker threads (plain pg) logged one successful attempt per item in their result statements.
        const db = new Client({ connectionString: database.url });
        await db.connect();
        try {
          const { rows } = await db.query(
            `SELECT count(*)::int AS n, count(DISTINCT item_id)::int AS items, count(*) FILTER (WHERE outcome = 'success' AND status_code = 200)::int AS ok
               FROM delivery_attempts`,
          );
          expect(rows[0]).toEqual({ n: 1000, items: 1000, ok: 1000 });
        } finally {
          await db.end();
        }
      } finally {
        await receiver.close();
        await runCli(env, ['webhook', 'remove', '1']);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'loses nothing when a replica is killed mid-delivery',
    async () => {
      // The receiver is slow, so that deliveries are under way when replica A dies.
      const receiver = await startReceiver(async () => {
        await new Promise((r) => setTimeout(r, 300));
        return { status: 204 };
      });
      try {
        expect((await runCli(env, webhookAddArgs(receiver.url, 'partner', 'to_webshop', 'replica-secret-0123'))).code).toBe(0);
        const ids = Array.from({ length: 200 }, (_, i) => `KILL-${i}`);
        for (const [i, id] of ids.entries()) expect((await report(i % 2 === 0 ? a : b, id, 'partner')).status).toBe(201);
        await waitFor(() => receiver.requests.length >= 20, 30_000);
        await a.stop('SIGKILL');
        // B finishes its own items and, once their leases expire, the ones A had claimed.
        await waitFor(
          () => new Set(receiver.requests.map((r) => JSON.parse(r.body).external_id)).size >= ids.length,
          120_000,
          'every partner delivered',
        );
        const delivered = new Set(receiver.requests.map((r) => JSON.parse(r.body).external_id as string));
        expect(delivered).toEqual(new Set(ids));
        // At least once: an item A was delivering when it died may have been delivered twice, never lost.
        await waitFor(async () => (await openItems(database.url)) === 0, 60_000, 'every item completed');
      } finally {
        await receiver.close();
      }
    },
    TIMEOUT_MS,
  );
});

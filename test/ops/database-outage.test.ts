import { Client } from 'pg';
import pino from 'pino';
import { openStore, type Store } from '../../src/db/store';
import { asTestDatabase, createPostgresDatabase } from '../support/database';
import { databaseUrl } from '../support/global-setup';
import { startTestServer, type JsonResponse, type TestServer } from '../support/http';
import { waitFor } from '../support/wait-for';

/**
 * The request path while PostgreSQL refuses connections, and while the pool is exhausted: 503
 * JSON with Retry-After and the request id, nothing internal in the body, and recovery without a
 * restart. Uses the production pool (src/db/store.ts, as DATABASE_URL opens it) on a database of
 * its own on the embedded test cluster, once per run: the outage is ALTER DATABASE … ALLOW_CONNECTIONS
 * and pg_terminate_backend (the cluster's role is a superuser), nothing that needs TCP.
 */

const POOL_SIZE = 3;
const POOL_TIMEOUT_MS = 1_000;
/** The advisory lock that holds the pool's connections. */
const HOLD_KEY = 4242;

describe('a database outage on the request path', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Store;
  let api: TestServer;
  let admin: Client;
  const name = () => new URL(database.url).pathname.slice(1);
  const socketDir = () => new URL(database.url).searchParams.get('host')!;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    db = await openStore({
      databaseUrl: database.url,
      dataDir: '/nonexistent',
      logger: pino({ level: 'silent' }),
      pool: { size: POOL_SIZE, timeoutMs: POOL_TIMEOUT_MS, statementTimeoutMs: 30_000 },
    });
    api = await startTestServer(asTestDatabase(db)); // token cache off: every request looks its token up
    // On the server's maintenance database: the test database's connections are the ones refused.
    admin = new Client({ connectionString: databaseUrl(database.url, 'postgres') });
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await api?.close();
    await db?.close();
    await admin?.end();
    await database?.drop();
  }, 60_000);

  const refuseConnections = async () => {
    await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name()]);
  };
  const allowConnections = () => admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`);
  /** Backends of this database waiting for the test's lock (the statements holding the pool). */
  const holders = async () =>
    Number(
      (
        await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE 'SELECT pg_advisory_xact_lock_shared%'`,
          [name()],
        )
      ).rows[0]!.n,
    );

  /** A 503 as SPEC's error envelope, with nothing of the server's insides. */
  const expectUnavailable = (res: JsonResponse) => {
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: res.headers.get('x-request-id') });
    expect(res.text).not.toMatch(/127\.0\.0\.1|5432|prisma|invocation|\.ts:|\.js:|SELECT|pg_|node_modules|\bat \//i);
    expect(res.text).not.toContain(socketDir()); // the cluster's socket directory
  };

  it('answers 503 JSON to every kind of request while connections are refused, and recovers without a restart', async () => {
    expect((await api.request('GET', '/api/v1/updated-products')).status).toBe(200);
    await refuseConnections();
    try {
      // The token lookup fails first: still the one error body.
      expectUnavailable(await api.request('GET', '/api/v1/updated-products'));
      expectUnavailable(await api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'OUT-1' }] } }));
      expectUnavailable(await api.request('DELETE', '/api/v1/updated-products/1'));
      expectUnavailable(await api.request('GET', '/metrics'));

      const graphql = await api.graphql('{ pendingChanges { products } }');
      expect(graphql.status).toBe(503);
      expect(graphql.headers.get('retry-after')).toBe('5');
      expect(graphql.text).not.toMatch(/127\.0\.0\.1|prisma|invocation|node_modules/i);
      expect(graphql.text).not.toContain(socketDir());

      const health = await api.request('GET', '/health', { token: null });
      expect(health.status).toBe(200);
      const ready = await api.request('GET', '/ready', { token: null });
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toMatch(/^unreachable: 55000: the database is not accepting connections$/);
    } finally {
      await allowConnections();
    }
    // The pool opens new connections on the next request; no restart.
    await waitFor(async () => (await api.request('GET', '/api/v1/updated-products')).status === 200, 60_000, 'answers again', {
      intervalMs: 200,
    });
    expect((await api.request('GET', '/ready', { token: null })).status).toBe(200);
  }, 60_000);

  it('answers 503 when no pooled connection frees up in time, not 500', async () => {
    // Hold every connection of the pool with a statement that waits for a lock the test holds: they
    // hold the pool until the test lets them go, however long the request below takes.
    // On the test's database (advisory locks are per database), outside the service's pool.
    const locker = new Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('SELECT pg_advisory_lock($1)', [HOLD_KEY]);
    const held = Array.from({ length: POOL_SIZE }, () =>
      db.prisma.$queryRawUnsafe<unknown[]>(`SELECT pg_advisory_xact_lock_shared(${HOLD_KEY})::text`),
    );
    const holding = Promise.allSettled(held);
    const queued = watchQueue(db);
    try {
      await waitFor(async () => (await holders()) === POOL_SIZE, 30_000, 'every pooled connection held');
      const res = await api.request('GET', '/api/v1/updated-products');
      expectUnavailable(res);
      // It waited in the pool's queue (for the pool timeout) and answered while every connection
      // was still held: it did not wait for them.
      expect(queued.count()).toBeGreaterThan(0);
    } finally {
      queued.restore();
      await locker.end(); // the lock goes with the session
      await holding;
    }
    expect((await api.request('GET', '/api/v1/updated-products')).status).toBe(200);
  }, 60_000);
});

/** Counts the requests for a connection of `db`'s pool that had to queue (every connection taken). */
function watchQueue(db: Store): { count(): number; restore(): void } {
  const pool = db.sql;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  let queued = 0;
  // pg-pool queues a caller synchronously when every connection is taken (pool.query calls this too).
  pool.connect = ((...args: unknown[]) => {
    const connecting = connect(...args);
    if (pool.waitingCount > 0) queued++;
    return connecting;
  }) as typeof pool.connect;
  return { count: () => queued, restore: () => void delete (pool as { connect?: unknown }).connect };
}

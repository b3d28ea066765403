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
  /** Backends of this database sleeping in pg_sleep (the statements holding the pool). */
  const sleepers = async () =>
    Number(
      (
        await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
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
    let status = 0;
    for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((r) => setTimeout(r, 200))) {
      status = (await api.request('GET', '/api/v1/updated-products')).status;
      if (status === 200) break;
    }
    expect(status).toBe(200);
    expect((await api.request('GET', '/ready', { token: null })).status).toBe(200);
  }, 60_000);

  it('answers 503 when no pooled connection frees up in time, not 500', async () => {
    // Hold every connection of the pool with a statement that sleeps.
    const held = Array.from({ length: POOL_SIZE }, () => db.prisma.$queryRawUnsafe<unknown[]>(`SELECT pg_sleep(8)::text`));
    let released = false;
    const holding = Promise.allSettled(held).then(() => (released = true));
    try {
      await waitFor(async () => (await sleepers()) === POOL_SIZE, 5_000, 'every pooled connection held');
      const started = Date.now();
      const res = await api.request('GET', '/api/v1/updated-products');
      const waited = Date.now() - started;
      expectUnavailable(res);
      // It waited for the pool timeout (1 s; a busy machine only adds to it), and answered while
      // the sleepers still held every connection: it did not wait for them.
      expect(waited).toBeGreaterThanOrEqual(POOL_TIMEOUT_MS - 100);
      expect(released).toBe(false);
    } finally {
      await holding;
    }
    expect((await api.request('GET', '/api/v1/updated-products')).status).toBe(200);
  }, 60_000);
});

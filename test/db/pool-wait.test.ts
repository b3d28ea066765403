import { Client } from 'pg';
import pino from 'pino';
import { PatientPool } from '../../src/db/postgres-pool';
import { openStore, type Store } from '../../src/db/store';
import { createLimitedRole, createPostgresDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';
import { waitFor } from '../support/wait-for';

/**
 * Issue 30: a request waits up to DATABASE_POOL_TIMEOUT_MS for a connection, also when the server
 * has no slot left (several replicas on one PostgreSQL, a burst), instead of answering 503 at once.
 * "No slot left" is a role's CONNECTION LIMIT (a superuser ignores limits), held by the test's own
 * connections, on the embedded test cluster.
 */
const LIMIT = 3;
const POOL_TIMEOUT_MS = 4_000;

describe('the request path waits for a connection while the database is full', () => {
  let database: { url: string; drop(): Promise<void> };
  let admin: Client;
  let store: Store;
  let api: TestServer;
  let limitedUrl: string;
  let limited: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    limited = await createLimitedRole(database.url, LIMIT);
    limitedUrl = limited.url;
    store = await openStore({
      databaseUrl: limitedUrl,
      dataDir: '/nonexistent',
      logger: pino({ level: 'silent' }),
      pool: { size: 10, timeoutMs: POOL_TIMEOUT_MS, statementTimeoutMs: 30_000 },
    });
    const testDb: TestDatabase = { ...store, queryCount: () => 0 };
    // No LISTEN connection of its own: every slot of the role is counted here.
    api = await startTestServer(testDb, { listenForRevocations: false });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await store?.close();
    await admin?.end();
    await database?.drop();
    await limited?.drop();
  }, 60_000);

  /** Every slot of the role, held by connections outside the service (another replica, say). */
  async function fillTheServer(): Promise<Client[]> {
    // The service's own idle connections would be a slot of their own: let them go first.
    await store.sql.query('SELECT 1');
    const idle = store.sql.idleCount;
    expect(idle).toBeGreaterThan(0);
    const held: Client[] = [];
    const terminate = await admin.query(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1`, [
      new URL(limitedUrl).username,
    ]);
    expect(Number(terminate.rows[0]!.count)).toBeGreaterThan(0);
    // The pool drops a terminated idle connection at its next error event.
    await waitFor(() => store.sql.totalCount === 0, 30_000, 'the terminated connections dropped');
    for (let i = 0; i < LIMIT; i++) {
      const c = new Client({ connectionString: limitedUrl });
      c.on('error', () => undefined);
      await c.connect();
      held.push(c);
    }
    await expect(new Client({ connectionString: limitedUrl }).connect()).rejects.toMatchObject({ code: '53300' });
    return held;
  }

  it('answers once a slot frees up within the timeout', async () => {
    const held = await fillTheServer();
    const refusals = countRefusals();
    try {
      const request = api.request('GET', '/api/v1/updated-products');
      // The request's connection was refused (no slot): it is waiting, not answered.
      await waitFor(() => refusals.count() > 0, 30_000, 'a refused connection');
      await held.pop()!.end();
      const res = await request;
      expect(res.status).toBe(200);
    } finally {
      refusals.restore();
      await Promise.all(held.map((c) => c.end()));
    }
  });

  it('answers 503 with Retry-After when no slot frees up within the timeout, not before', async () => {
    const held = await fillTheServer();
    const refusals = countRefusals();
    try {
      const res = await api.request('GET', '/api/v1/updated-products');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      // Refused, and tried again (until the pool timeout), before it answered.
      expect(refusals.count()).toBeGreaterThanOrEqual(2);
    } finally {
      refusals.restore();
      await Promise.all(held.map((c) => c.end()));
    }
  });
});

/**
 * Counts the connections PostgreSQL refused for want of a slot (53300), as the service's pool
 * (PatientPool, which waits and tries again) is told of them by pg-pool underneath.
 */
function countRefusals(): { count(): number; restore(): void } {
  const base = Object.getPrototypeOf(PatientPool.prototype) as { connect(...args: unknown[]): unknown };
  const own = Object.prototype.hasOwnProperty.call(base, 'connect');
  const connect = base.connect;
  let refused = 0;
  base.connect = function (this: unknown, ...args: unknown[]) {
    const connecting = connect.apply(this, args);
    if (connecting instanceof Promise)
      connecting.catch((error: unknown) => {
        if ((error as { code?: unknown }).code === '53300') refused++;
      });
    return connecting;
  };
  return {
    count: () => refused,
    restore: () => {
      if (own) base.connect = connect;
      else delete (base as { connect?: unknown }).connect;
    },
  };
}

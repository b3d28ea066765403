import type { SqlQuery } from '@prisma/driver-adapter-utils';
import { startEmbeddedThread, type EmbeddedThread } from '../../src/db/embedded-thread';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { openEmbeddedTestStore } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';

/*
 * ADR 0032: PGlite runs on a thread of its own. The event loop answers while a statement runs,
 * and a transaction the main side gives up on never wedges the store.
 */

const sql = (text: string): SqlQuery => ({ sql: text, args: [], argTypes: [] });

/** Requests /health one after the other until `until` settles; returns how many were answered before. */
async function healthAnswersWhile(api: TestServer, until: Promise<unknown>): Promise<number> {
  let settled = false;
  void until.finally(() => (settled = true));
  let answered = 0;
  while (!settled) {
    const res = await api.request('GET', '/health', { token: null });
    expect(res.status).toBe(200);
    if (!settled) answered++;
  }
  await until;
  return answered;
}

describe('the embedded store on its own thread', () => {
  describe('the event loop stays free', () => {
    let store: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
    let api: TestServer;

    beforeAll(async () => {
      store = await openEmbeddedTestStore();
      api = await startTestServer(store.asTestDatabase());
    });
    afterAll(async () => {
      await api.close();
      await store.db.close();
      await store.remove();
    });

    it('answers /health again and again while one statement holds the store', async () => {
      // One statement of two seconds: on the main thread it would block every answer until it returned.
      const statement = store.db.prisma.$queryRawUnsafe('SELECT pg_sleep(2)::text AS slept');
      expect(await healthAnswersWhile(api, statement)).toBeGreaterThanOrEqual(3);
    });

    it('answers /health while a 10,000-stock push runs, and the push lands whole', async () => {
      const stocks = Array.from({ length: 10_000 }, (_, i) => ({ supplier_external_id: 'S1', product_external_id: `P${i}`, quantity: i }));
      const push = api.request('POST', '/api/v1/stocks', { body: { stocks } });
      expect(await healthAnswersWhile(api, push)).toBeGreaterThanOrEqual(1);
      expect((await push).status).toBe(200);
      expect(await store.db.prisma.stock.count({ where: { supplierExternalId: 'S1', pending: true } })).toBe(10_000);
    });
  });

  describe('abandoned transactions', () => {
    let thread: EmbeddedThread;

    beforeAll(async () => {
      thread = await startEmbeddedThread({ transactionIdleMs: 300 });
      await thread.exec('CREATE TABLE t (v int)');
    });
    afterAll(() => thread.close());

    it('rolls back a transaction nobody finishes, and the statements queued behind it run', async () => {
      const adapter = await thread.adapter.connect();
      const tx = await adapter.startTransaction();
      await tx.executeRaw(sql('INSERT INTO t VALUES (1)'));
      // Never committed nor rolled back: this statement waits behind it until the thread gives up on it.
      const { rows } = await thread.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      expect(rows[0]!.n).toBe(0);
      await expect(tx.executeRaw(sql('INSERT INTO t VALUES (2)'))).rejects.toThrow(/rolled back/);
      await expect(tx.commit()).rejects.toThrow(/rolled back/);
      // The next transaction works as usual.
      const next = await adapter.startTransaction();
      await next.executeRaw(sql('INSERT INTO t VALUES (3)'));
      await next.commit();
      expect((await thread.query<{ v: number }>('SELECT v FROM t')).rows).toEqual([{ v: 3 }]);
    });

    it('rolls back the store’s own transaction when its work throws', async () => {
      await expect(
        thread.transaction(async (tx) => {
          await tx.exec('INSERT INTO t VALUES (4)');
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await thread.query<{ v: number }>('SELECT v FROM t WHERE v = 4')).rows).toEqual([]);
    });
  });

  describe('Prisma over the thread', () => {
    let db: TestDatabase;

    beforeAll(async () => {
      db = await openTestDatabase('pglite');
    });
    afterAll(() => db.close());

    it('rolls back an interactive transaction that times out, and the store goes on', async () => {
      await expect(
        db.prisma.$transaction(
          async (tx) => {
            await tx.apiToken.create({ data: { name: 'timed-out', tokenHash: 'h1' } });
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          },
          { timeout: 200 },
        ),
      ).rejects.toThrow();
      expect(await db.prisma.apiToken.count({ where: { name: 'timed-out' } })).toBe(0);
      await db.prisma.apiToken.create({ data: { name: 'after', tokenHash: 'h2' } });
      expect(await db.prisma.apiToken.count({ where: { name: 'after' } })).toBe(1);
    });

    it('rolls back an interactive transaction whose callback throws', async () => {
      await expect(
        db.prisma.$transaction(async (tx) => {
          await tx.apiToken.create({ data: { name: 'thrown', tokenHash: 'h3' } });
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await db.prisma.apiToken.count({ where: { name: 'thrown' } })).toBe(0);
    });

    it('keeps Postgres errors as Prisma knows them (a unique violation is P2002)', async () => {
      await db.prisma.apiToken.create({ data: { name: 'twice', tokenHash: 'h4' } });
      await expect(db.prisma.apiToken.create({ data: { name: 'twice', tokenHash: 'h5' } })).rejects.toMatchObject({ code: 'P2002' });
    });

    it('round-trips the column types: bytes, big integers, dates, JSON and arrays', async () => {
      const [row] = await db.prisma.$queryRawUnsafe<Array<Record<string, unknown>>>(
        `SELECT '\\x0102ff'::bytea AS b, 9007199254740993::bigint AS i, '2026-11-24T10:00:00.123Z'::timestamptz AS t,
                '{"a":[1,2]}'::jsonb AS j, ARRAY['x','y'] AS a, 1.5::float8 AS f, true AS ok`,
      );
      expect(row).toEqual({
        b: new Uint8Array([1, 2, 255]),
        i: 9007199254740993n,
        t: new Date('2026-11-24T10:00:00.123Z'),
        j: { a: [1, 2] },
        a: ['x', 'y'],
        f: 1.5,
        ok: true,
      });
    });
  });
});

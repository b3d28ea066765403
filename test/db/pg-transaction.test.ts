import { backends, openTestDatabase, type TestDatabase } from '../support/database';
import { sql } from '@prisma/client-runtime-utils';
import { inPgTransaction } from '../../src/db/pg-transaction';
import { inTransaction } from '../../src/changes/upsert';

/**
 * Pushes run their transactions on the store's pg pool directly (src/db/pg-transaction.ts), on
 * either backend. What they rely on: the values come back as Prisma's raw queries return them, a
 * throw rolls everything back, and the connection goes back to the pool either way.
 */
describe.each(backends)('push transactions on the pg pool on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  }, 120_000);
  afterAll(async () => {
    await db.close();
  });

  const shapes = (p: string) => sql`SELECT 7::int AS i, 'x'::text AS t, '{"a":[1,null]}'::jsonb AS j, 1.5::float8 AS f, true AS b,
                         '2026-11-24T12:34:56.789Z'::timestamptz AS ts, '2026-11-24'::date AS d, ARRAY['a','b']::text[] AS arr,
                         NULL::int AS n, ${p}::text AS p`;

  it('answers the values Prisma raw queries answer', async () => {
    const viaPrisma = await db.prisma.$queryRaw<unknown[]>(shapes('param'));
    const viaPool = await inPgTransaction(db.sql, (tx) => tx.$queryRaw<unknown[]>(shapes('param')));
    expect(viaPool).toEqual(viaPrisma);
    expect(viaPool).toEqual([
      {
        i: 7,
        t: 'x',
        j: { a: [1, null] },
        f: 1.5,
        b: true,
        ts: new Date('2026-11-24T12:34:56.789Z'),
        d: new Date('2026-11-24T00:00:00.000Z'),
        arr: ['a', 'b'],
        n: null,
        p: 'param',
      },
    ]);
  });

  it('refuses a column type whose Prisma shape it does not map, rather than answer another shape', async () => {
    await expect(inPgTransaction(db.sql, (tx) => tx.$queryRaw`SELECT 1::bigint AS big`)).rejects.toThrow(/big has type oid 20/);
  });

  it('commits what the work wrote and counts the rows a statement changed', async () => {
    const changed = await inPgTransaction(db.sql, async (tx) => {
      await tx.$executeRaw`INSERT INTO change_clocks (name, stamp) VALUES ('pg-tx-commit', now())`;
      return tx.$executeRaw`UPDATE change_clocks SET stamp = stamp + interval '1 ms' WHERE name LIKE 'pg-tx-%'`;
    });
    expect(changed).toBe(1);
    expect(await db.prisma.$queryRawUnsafe(`SELECT name FROM change_clocks WHERE name = 'pg-tx-commit'`)).toEqual([
      { name: 'pg-tx-commit' },
    ]);
  });

  it('rolls back everything when the work throws, and returns the connection to the pool', async () => {
    const pool = db.sql;
    const failure = new Error('the push failed half-way');
    await expect(
      inPgTransaction(pool, async (tx) => {
        await tx.$executeRaw`INSERT INTO change_clocks (name, stamp) VALUES ('pg-tx-rollback', now())`;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.prisma.$queryRawUnsafe(`SELECT name FROM change_clocks WHERE name = 'pg-tx-rollback'`)).toEqual([]);
    // A statement error aborts the transaction on the server: the rollback still leaves a usable connection.
    await expect(inPgTransaction(pool, (tx) => tx.$queryRaw`SELECT 1 / 0 AS boom`)).rejects.toThrow(/division by zero/);
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(await inPgTransaction(pool, (tx) => tx.$queryRaw`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('survives losing its connection mid-transaction: the push fails, the process and the pool carry on', async () => {
    const pool = db.sql;
    await expect(
      inPgTransaction(pool, async (tx) => {
        const [own] = await tx.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`;
        await db.prisma.$queryRawUnsafe('SELECT pg_terminate_backend($1::int) AS ended', own!.pid);
        // Give the lost connection's error event time to arrive before the next statement.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return tx.$queryRaw`SELECT 1 AS one`;
      }),
    ).rejects.toThrow();
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(await inPgTransaction(pool, (tx) => tx.$queryRaw`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it("is the path inTransaction takes: the store's pool, Prisma sees none of it", async () => {
    const connect = jest.spyOn(db.sql, 'connect');
    try {
      const before = db.queryCount();
      expect(await inTransaction(db, (tx) => tx.$queryRaw`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
      expect(connect).toHaveBeenCalledTimes(1);
      expect(db.queryCount()).toBe(before);
    } finally {
      connect.mockRestore();
    }
  });
});

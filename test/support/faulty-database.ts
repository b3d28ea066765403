import { PrismaPg } from '@prisma/adapter-pg';
import {
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlQuery,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import { Pool, type PoolClient } from 'pg';
import type { Backend } from '../../src/db/store';
import { migratePostgres } from '../../src/db/migrations';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createPostgresDatabase, type TestDatabase } from './database';

/**
 * What the database driver answers while a fault is on: `outage` is what the pg adapter throws
 * when the server cannot be reached; `internal` is an error no caller expects (SQLSTATE XX000).
 */
export type DatabaseFault = 'outage' | 'internal';

const FAULT_ERRORS: Record<DatabaseFault, ConstructorParameters<typeof DriverAdapterError>[0]> = {
  outage: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 },
  internal: {
    kind: 'postgres',
    code: 'XX000',
    severity: 'ERROR',
    message: 'injected internal error',
    detail: undefined,
    column: undefined,
    hint: undefined,
  },
};

/** The same faults as pg raises them: a refused connection, and a server error with its SQLSTATE. */
const PG_FAULT_ERRORS: Record<DatabaseFault, () => Error> = {
  outage: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' }),
  internal: () => Object.assign(new Error('injected internal error'), { code: 'XX000', severity: 'ERROR' }),
};

/** `pool` whose queries, and the queries of the clients it lends, pass `check` first. */
function faultyPool(pool: Pool, check: (text: string) => void): Pool {
  const textOf = (query: unknown) => (typeof query === 'string' ? query : ((query as { text?: string }).text ?? ''));
  const guarded = <Q extends (...args: never[]) => unknown>(query: Q) =>
    ((...args: Parameters<Q>) => {
      try {
        check(textOf(args[0]));
      } catch (error) {
        return Promise.reject(error);
      }
      return query(...args);
    }) as unknown as Q;
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  return overriding(pool, {
    query: guarded(pool.query.bind(pool)),
    connect: (async () => {
      const client = await connect();
      client.query = guarded(client.query.bind(client));
      return client;
    }) as unknown as Pool['connect'],
  });
}

export type FaultyDatabase = TestDatabase & {
  /**
   * Every statement the driver is given fails with `fault` until `undefined` is set, except those
   * `spare` lets through (say, the token lookup, so that a request gets past authentication).
   */
  setFault(fault: DatabaseFault | undefined, spare?: (sql: string) => boolean): void;
};

/**
 * A migrated database of its own (like openTestDatabase) whose driver can be told to fail: the
 * system edge where outages and driver errors enter, so that every layer above it runs as is.
 */
export async function openFaultyDatabase(backend: Backend): Promise<FaultyDatabase> {
  let fault: { error: DatabaseFault; spare: (sql: string) => boolean } | undefined;
  const check = (query: SqlQuery | string) => {
    const sql = typeof query === 'string' ? query : query.sql;
    if (fault && !fault.spare(sql)) throw new DriverAdapterError(FAULT_ERRORS[fault.error]);
  };
  const wrapTransaction = (tx: Transaction): Transaction =>
    overriding(tx, {
      queryRaw: (q: SqlQuery) => (check(q), tx.queryRaw(q)),
      executeRaw: (q: SqlQuery) => (check(q), tx.executeRaw(q)),
    });
  const wrapAdapter = (adapter: SqlDriverAdapter): SqlDriverAdapter =>
    overriding(adapter, {
      queryRaw: (q: SqlQuery) => (check(q), adapter.queryRaw(q)),
      executeRaw: (q: SqlQuery) => (check(q), adapter.executeRaw(q)),
      executeScript: (s: string) => (check(s), adapter.executeScript(s)),
      startTransaction: async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
        check('BEGIN');
        return wrapTransaction(await adapter.startTransaction(...args));
      },
    });
  const wrapFactory = (factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory =>
    overriding(factory, { connect: async () => wrapAdapter(await factory.connect()) });

  const database = await createPostgresDatabase(backend);
  // The pool beneath the service's own statements (pushes, change lists, reports) fails alike.
  const sql = faultyPool(new Pool({ connectionString: database.url }), (text) => {
    if (fault && !fault.spare(text)) throw PG_FAULT_ERRORS[fault.error]();
  });
  sql.on('error', () => undefined);
  const factory: SqlDriverAdapterFactory = new PrismaPg({ connectionString: database.url });
  const prisma = new PrismaClient({ adapter: wrapFactory(factory) });
  return {
    backend,
    prisma,
    sql,
    url: database.url,
    queryCount: () => 0,
    migrate: () => migratePostgres(database.url),
    setFault(error, spare = () => false) {
      fault = error ? { error, spare } : undefined;
    },
    async close() {
      fault = undefined;
      await prisma.$disconnect();
      await sql.end();
      await database.drop();
    },
  };
}

/** `target` with some methods replaced; the others still run on `target` itself (private fields work). */
function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(object, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}

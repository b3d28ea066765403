import type { Pool, PoolClient } from 'pg';
import type { PrismaClient } from '../generated/prisma/client';
import { checkedColumn, prismaShapes } from './prepared-query';

/**
 * Push transactions on PostgreSQL straight through the pg pool beneath Prisma's adapter (ADR 0031,
 * "History cost"): BEGIN, the push's statements, COMMIT on one pooled connection, without
 * Prisma's interactive-transaction and raw-query layers. Results come back as Prisma's raw
 * queries return them (`prismaShapes`; any other column type is refused loudly, as in
 * `queryPrepared`), so the same statements run unchanged under Prisma on the embedded store.
 */

/** What a push's statements need of a connection: Prisma's two raw-query methods. */
export type PgRunner = {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
};

/** The pool a Prisma client's adapter draws from, for clients opened on PostgreSQL. */
const pools = new WeakMap<PrismaClient, Pool>();

/** Called where a PostgreSQL client is opened: its pushes then run through `pool` directly. */
export function attachPool(prisma: PrismaClient, pool: Pool): void {
  pools.set(prisma, pool);
}

/** The pool attached to `prisma`, if any (none on the embedded store). */
export function attachedPool(prisma: PrismaClient): Pool | undefined {
  return pools.get(prisma);
}

function runnerOn(client: PoolClient): PgRunner {
  return {
    async $queryRawUnsafe<T>(query: string, ...values: unknown[]): Promise<T> {
      const result = await client.query({ text: query, values, types: prismaShapes });
      result.fields.forEach(checkedColumn);
      return result.rows as T;
    },
    async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
      const result = await client.query({ text: query, values, types: prismaShapes });
      return result.rowCount ?? 0;
    },
  };
}

/**
 * Runs `work` in one transaction on a connection of `pool` (the database's default isolation, read
 * committed, as Prisma's `$transaction`). Whatever `work` throws rolls the transaction back and is
 * rethrown; a connection that failed, or cannot even roll back, is destroyed rather than returned to the pool.
 */
export async function inPgTransaction<T>(pool: Pool, work: (runner: PgRunner) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The pool listens for errors only on idle connections: a connection lost while checked out
  // would otherwise be an unhandled 'error' event. Its queries fail on their own; it is destroyed.
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    try {
      await client.query('BEGIN');
    } catch (error) {
      broken = asError(error);
      throw error;
    }
    try {
      const result = await work(runnerOn(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = asError(rollbackError);
      });
      throw error;
    }
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

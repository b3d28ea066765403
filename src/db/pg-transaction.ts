import { Sql, sql } from '@prisma/client-runtime-utils';
import type { Pool, PoolClient } from 'pg';
import { checkedColumns, prismaShapes } from './prepared-query';

/**
 * Push transactions straight through the pg pool beneath Prisma's adapter (ADR 0031, "History
 * cost"): BEGIN, the push's statements, COMMIT on one pooled connection, without Prisma's
 * interactive-transaction and raw-query layers. Results come back as Prisma's raw queries return
 * them (`prismaShapes`; any other column type is refused loudly, as in `queryPrepared`), so a
 * statement written for Prisma's raw queries runs here unchanged.
 */

/**
 * What a push's statements need of a connection: Prisma's two raw-query methods, called with a
 * template or with an `sql` statement (their text and values built as Prisma builds them, nested
 * fragments included).
 */
export type PgRunner = {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<number>;
};

/** A tagged call's statement: the `sql` object itself, or the one its template and values make. */
export const statementOf = (query: TemplateStringsArray | Sql, values: unknown[]): Sql =>
  query instanceof Sql ? query : sql(query, ...(values as Parameters<typeof sql>[1][]));

function runnerOn(client: PoolClient): PgRunner {
  const rows = async <T>(text: string, values: unknown[]): Promise<T> => {
    const result = await client.query({ text, values, types: prismaShapes });
    await checkedColumns(client, result.fields);
    return result.rows as T;
  };
  const count = async (text: string, values: unknown[]): Promise<number> =>
    (await client.query({ text, values, types: prismaShapes })).rowCount ?? 0;
  return {
    $queryRaw: <T>(query: TemplateStringsArray | Sql, ...values: unknown[]) => {
      const statement = statementOf(query, values);
      return rows<T>(statement.text, statement.values);
    },
    $executeRaw: (query: TemplateStringsArray | Sql, ...values: unknown[]) => {
      const statement = statementOf(query, values);
      return count(statement.text, statement.values);
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

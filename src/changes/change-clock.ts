import type { SqlRunner, TrackedTableName } from './ledger';

/**
 * The change clock of a tracked table: the `updated_at` stamp for every row a write transaction
 * changes in it, so that a client paging a change list with `since` = the newest updatedAt it
 * has seen never misses a later commit (ADR 0003).
 *
 * `now()` would not do: it is the time the transaction began, so a long batch that began first
 * and commits last would carry older stamps than a short batch that committed before it, and a
 * client that already paged past the short batch's stamp would skip the long one for good.
 *
 * Taking the clock updates its row, and PostgreSQL holds that row lock until the transaction
 * ends, so writers of one table stamp one at a time, each after the previous one committed:
 * stamps follow commit order. They are whole milliseconds (what JSON shows, so a `since` copied
 * from a response is exact) and strictly increasing (the next writer gets at least 1 ms more).
 *
 * Call it after the transaction's row locks (SELECT … FOR UPDATE) and before its first insert or
 * update of the table, so that no writer waiting for the clock holds an uncommitted insert that
 * the clock holder could wait for. A transaction writing several tables takes their clocks in
 * one order: products, price_items, purchase_orders.
 */
export async function takeChangeClock(tx: SqlRunner, table: TrackedTableName): Promise<Date> {
  const rows = await tx.$queryRaw<Array<{ stamp: Date }>>`
    INSERT INTO change_clocks AS c (name, stamp) VALUES (${table}, date_trunc('milliseconds', clock_timestamp()))
     ON CONFLICT (name) DO UPDATE
        SET stamp = GREATEST(date_trunc('milliseconds', clock_timestamp()), c.stamp + interval '1 millisecond')
     RETURNING stamp`;
  return rows[0]!.stamp;
}

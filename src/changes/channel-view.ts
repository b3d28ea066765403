import type { PrismaClient } from '../generated/prisma/client';
import { fetchPage, type PageArgs } from './page';
import type { PageShape } from './results';
import { channelPendingSql, T } from './sql/fragments';
import type { ChannelRecordState } from './sql/read-channel-states';
import { column, join, sql, trackedTable, type Sql } from './sql/sql';
import type { TrackedTableName } from './tracked-entities';

/**
 * Lookups on a channel other than default (ADR 0045). A record read as it is stored (by id, by a
 * dashboard's filter, through a relation) carries channel default's ledger in its own columns; a
 * caller bound to another channel must see that channel's instead. Its state is read beside the
 * row, per table, for many ids at once: the channel's acknowledged revision and whether the row
 * lies above its cursor. Everything else (pending, new, changed fields, `previous`) follows from
 * those and the row, by the rules the channel's change list applies in SQL (page.ts).
 */

/** The ledger fields a record shows its reader. */
export type LedgerView = { pending: boolean; isNew: boolean; changedFields: string[]; ackedRevision: number };

/**
 * The channel's view of a row: pending when above the cursor and its revision (as read) is not
 * acknowledged; new without an acknowledgement; changed fields those whose last change is above
 * the acknowledged revision (sorted, as pendingFieldsSql). A row deleted since it was read has no
 * state and shows as never acknowledged.
 */
export function channelView(row: { revision: number; fieldRevisions: unknown }, state: ChannelRecordState | undefined): LedgerView {
  const acked = state?.ackedRevision ?? null;
  const threshold = acked ?? 0;
  const fields = (row.fieldRevisions ?? {}) as Record<string, number>;
  return {
    pending: (state?.aboveCursor ?? true) && (acked === null || acked < row.revision),
    isNew: acked === null,
    changedFields: Object.keys(fields)
      .filter((field) => Number(fields[field]) > threshold)
      .sort(),
    ackedRevision: threshold,
  };
}

/** A condition of a dashboard's list beside the pending state: a column equal to a value, empty, or after a time. */
export type ColumnCondition =
  { column: string; equals: string | number } | { column: string; isNull: true } | { column: string; after: Date };

/**
 * A dashboard's page of `table` filtered by the pending state on channel `channelId`, newest change
 * first as RECENT_ORDER: ids and total by SQL (Prisma cannot say "above the cursor"), the rows then
 * by `rowsOf`, in the page's order. `conditions`' columns are names written in the code, never input.
 */
export function pageOnChannel<Row extends { id: number }>(
  prisma: PrismaClient,
  table: TrackedTableName,
  channelId: number,
  pending: boolean,
  conditions: readonly ColumnCondition[],
  args: PageArgs,
  rowsOf: (ids: number[]) => Promise<Row[]>,
): Promise<PageShape<Row>> {
  const pendingOnChannel = channelPendingSql(table, T, channelId);
  const where: Sql[] = [pending ? pendingOnChannel : sql`NOT ${pendingOnChannel}`];
  for (const c of conditions) {
    const col = sql`t.${column(c.column)}`;
    // Compared as text: enum columns (a partner's type, an order's direction) have no = with a text parameter.
    if ('equals' in c) where.push(sql`${col}::text = ${String(c.equals)}::text`);
    else if ('isNull' in c) where.push(sql`${col} IS NULL`);
    else where.push(sql`${col} > ${c.after.toISOString()}::timestamptz`);
  }
  const from = sql`FROM ${trackedTable(table)} AS t WHERE ${join(where, ' AND ')}`;
  return fetchPage(args, from, {
    find: async (rowsFrom, window) => {
      const ids = await prisma.$queryRaw<Array<{ id: number }>>(
        sql`SELECT t.id ${rowsFrom} ORDER BY t.updated_at DESC, t.id DESC LIMIT ${window.take}::int OFFSET ${window.skip}::int`,
      );
      const rows = new Map((await rowsOf(ids.map((r) => r.id))).map((row) => [row.id, row]));
      return ids.flatMap((r) => rows.get(r.id) ?? []);
    },
    count: async (rowsFrom) => (await prisma.$queryRaw<Array<{ n: number }>>(sql`SELECT count(*)::int AS n ${rowsFrom}`))[0]?.n ?? 0,
  });
}

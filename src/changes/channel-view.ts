import type { PrismaClient } from '../generated/prisma/client';
import { aboveCursorSql, channelAckJoinSql, channelPendingSql } from './channel-ledger';
import type { SqlRunner } from './ledger';
import { fetchPage, type PageArgs } from './page';
import type { PageShape } from './results';
import { trackedTable, type TrackedTableName } from './tracked-entities';

/**
 * Lookups on a channel other than default (ADR 0045). A record read as it is stored (by id, by a
 * dashboard's filter, through a relation) carries channel default's ledger in its own columns; a
 * caller bound to another channel must see that channel's instead. Its state is read beside the
 * row, per table, for many ids at once: the channel's acknowledged revision and whether the row
 * lies above its cursor. Everything else (pending, new, changed fields, `previous`) follows from
 * those and the row, by the rules the channel's change list applies in SQL (page.ts).
 */

/** A channel's state of one record: its acknowledged revision (null: none, never acknowledged) and its position. */
export type ChannelRecordState = { ackedRevision: number | null; aboveCursor: boolean };

/** One statement for any number of ids of one table; an id no longer stored is left out. */
export async function readChannelStates(
  db: SqlRunner,
  table: TrackedTableName,
  channelId: number,
  ids: readonly number[],
): Promise<Map<number, ChannelRecordState>> {
  const rows = await db.$queryRawUnsafe<Array<{ id: number; acked_revision: number | null; above: boolean }>>(
    `SELECT t.id, a.acked_revision, ${aboveCursorSql(table, 't', '$1::int')} AS above
       FROM ${trackedTable(table)} AS t ${channelAckJoinSql(table, 't', '$1::int')}
      WHERE t.id IN (SELECT (jsonb_array_elements_text($2::jsonb))::int)`,
    channelId,
    JSON.stringify([...new Set(ids)]),
  );
  return new Map(rows.map((r) => [r.id, { ackedRevision: r.acked_revision, aboveCursor: r.above }]));
}

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
  const params: unknown[] = [channelId];
  const where = [pending ? channelPendingSql(table, 't', '$1::int') : `NOT ${channelPendingSql(table, 't', '$1::int')}`];
  for (const c of conditions) {
    // Compared as text: enum columns (a partner's type, an order's direction) have no = with a text parameter.
    if ('equals' in c) where.push(`t."${c.column}"::text = $${params.push(String(c.equals))}::text`);
    else if ('isNull' in c) where.push(`t."${c.column}" IS NULL`);
    else where.push(`t."${c.column}" > $${params.push(c.after.toISOString())}::timestamptz`);
  }
  const from = `FROM ${trackedTable(table)} AS t WHERE ${where.join(' AND ')}`;
  return fetchPage(args, from, {
    find: async (sql, window) => {
      const ids = await prisma.$queryRawUnsafe<Array<{ id: number }>>(
        `SELECT t.id ${sql} ORDER BY t.updated_at DESC, t.id DESC LIMIT $${params.length + 1}::int OFFSET $${params.length + 2}::int`,
        ...params,
        window.take,
        window.skip,
      );
      const rows = new Map((await rowsOf(ids.map((r) => r.id))).map((row) => [row.id, row]));
      return ids.flatMap((r) => rows.get(r.id) ?? []);
    },
    count: async (sql) => (await prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n ${sql}`, ...params))[0]?.n ?? 0,
  });
}

import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { aboveCursorSql, channelAckJoinSql, T } from './fragments';
import { sql, trackedTable } from './sql';

/** A channel's state of one record: its acknowledged revision (null: none, never acknowledged) and its position. */
export type ChannelRecordState = { ackedRevision: number | null; aboveCursor: boolean };

/**
 * A channel's state of records of one table (ADR 0045), read beside the rows; channel-view.ts
 * derives the rest from it. One statement for any number of ids; an id no longer stored is left out.
 */
export async function readChannelStates(
  db: SqlRunner,
  table: TrackedTableName,
  channelId: number,
  ids: readonly number[],
): Promise<Map<number, ChannelRecordState>> {
  const rows = await db.$queryRaw<Array<{ id: number; acked_revision: number | null; above: boolean }>>(sql`
    SELECT t.id, a.acked_revision, ${aboveCursorSql(table, T, channelId)} AS above
      FROM ${trackedTable(table)} AS t ${channelAckJoinSql(table, T, channelId)}
     WHERE t.id IN (SELECT (jsonb_array_elements_text(${JSON.stringify([...new Set(ids)])}::jsonb))::int)`);
  return new Map(rows.map((r) => [r.id, { ackedRevision: r.acked_revision, aboveCursor: r.above }]));
}

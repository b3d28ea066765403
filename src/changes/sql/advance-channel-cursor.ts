import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { aboveCursorSql, firstPendingSql, T } from './fragments';
import { sql, trackedTable, trackedTableLiteral } from './sql';

/**
 * Moves the channel's cursor over the records above it that the channel has acknowledged at their
 * current revision, up to the first one still pending: an index scan from the cursor that stops at
 * that record (it reads only the records it passes, amortised O(1) per acknowledged record), then
 * one step back from it. Only committed rows are passed: a writer still running stamps beyond every
 * committed row (ADR 0003), so its change lands above the new cursor.
 */
export async function advanceChannelCursor(tx: SqlRunner, table: TrackedTableName, channelId: number): Promise<void> {
  await tx.$executeRaw(sql`
    WITH first_pending AS MATERIALIZED (${firstPendingSql(table, channelId, sql`t.updated_at, t.id`)}), passed AS (
       SELECT t.updated_at, t.id FROM ${trackedTable(table)} AS t
        WHERE ${aboveCursorSql(table, T, channelId)}
          AND (t.updated_at, t.id) < (COALESCE((SELECT updated_at FROM first_pending), 'infinity'), COALESCE((SELECT id FROM first_pending), 0))
        ORDER BY t.updated_at DESC, t.id DESC LIMIT 1
     )
     UPDATE channel_cursors AS c SET stamp = passed.updated_at, record_id = passed.id
       FROM passed WHERE c.channel_id = ${channelId}::int AND c.table_name = ${trackedTableLiteral(table)}`);
}

import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { scopeSql } from './fragments';
import { sql, trackedTable, trackedTableLiteral } from './sql';

/**
 * After a replay on channel default (replay-on-default.ts) of the rows `ids` (a JSON array): the
 * statement's trigger counted each record pending for the channels that had acknowledged its old
 * revision; they did not ask for the replay: their acknowledgement moves on, uncounted.
 */
export async function moveChannelAcksOverReplay(tx: SqlRunner, table: TrackedTableName, ids: string): Promise<void> {
  await tx.$executeRaw(sql`
    WITH moved AS (
       UPDATE channel_acks AS a SET acked_revision = t.revision
         FROM ${trackedTable(table)} AS t
        WHERE a.table_name = ${trackedTableLiteral(table)} AND a.record_id = t.id AND a.acked_revision = t.revision - 1
          AND t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)
       RETURNING a.channel_id, ${scopeSql(table)} AS scope
     )
     INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
     SELECT channel_id, ${trackedTableLiteral(table)}, scope, -count(*) FROM moved GROUP BY channel_id, scope`);
}

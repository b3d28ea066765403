import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { scopeSql } from './fragments';
import { sql, trackedTable, trackedTableLiteral } from './sql';

/**
 * A replay on a channel other than default, its acknowledgements: those of the rows `ids` (a JSON
 * array) go back to 0, every field changed since, as on default (a record the channel never
 * acknowledged stays new), and the records they took out of pending count as pending again.
 */
export async function resetChannelAcks(tx: SqlRunner, table: TrackedTableName, ids: string, channelId: number): Promise<void> {
  const name = trackedTableLiteral(table);
  await tx.$executeRaw(sql`
    WITH before AS MATERIALIZED (
       SELECT a.record_id, ${scopeSql(table)} AS scope, a.acked_revision >= t.revision AS was_acknowledged
         FROM channel_acks AS a JOIN ${trackedTable(table)} AS t ON t.id = a.record_id
        WHERE a.channel_id = ${channelId}::int AND a.table_name = ${name} AND t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)
     ), reset AS (
       UPDATE channel_acks SET acked_revision = 0
        WHERE channel_id = ${channelId}::int AND table_name = ${name} AND record_id IN (SELECT record_id FROM before)
     )
     INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
     SELECT ${channelId}::int, ${name}, scope, count(*) FROM before WHERE was_acknowledged GROUP BY scope`);
}
